#include "cachelib/engine/mode_table.h"

namespace tiercache {
namespace {

constexpr ModeOps kModes[] = {
    {"wt", &WriteSegmentWt},  // CacheMode::kWriteThrough
    {"wb", &WriteSegmentWb},  // CacheMode::kWriteBack
    {"wa", &WriteSegmentWa},  // CacheMode::kWriteAround
    {"pt", &WriteSegmentPt},  // CacheMode::kPassThrough
};

// The room of the shard of the request's first line.
class ShardRoom final : public CacheRoom {
 public:
  ShardRoom(Engine& engine, uint64_t offset) : engine_(engine), offset_(offset) {}
  bool has_room() const override {
    return engine_.shard_for(offset_ / engine_.line_size).has_room();
  }

 private:
  Engine& engine_;
  uint64_t offset_;
};

}  // namespace

const ModeOps& OpsFor(CacheMode mode) { return kModes[static_cast<int>(mode)]; }

CacheMode ResolveEffectiveMode(Engine& engine, CacheMode mode, uint64_t offset, uint64_t length,
                               bool is_write, uint64_t* stream_bytes, bool* stream_bypass) {
  if (stream_bytes != nullptr) *stream_bytes = 0;
  if (stream_bypass != nullptr) *stream_bypass = false;
  // A failed SSD is out of the data path (ssd_health.h) until reset_health.
  if (mode == CacheMode::kPassThrough || engine.ssd_health.failed()) return CacheMode::kPassThrough;
  const ShardRoom room(engine, offset);
  const bool bypass = engine.sequential.observe(offset, length, is_write, stream_bytes, &room);
  if (stream_bypass != nullptr) *stream_bypass = bypass;
  return bypass ? CacheMode::kPassThrough : mode;
}

}  // namespace tiercache
