#include "cachelib/engine/mode_table.h"

namespace tiercache {
namespace {

constexpr ModeOps kModes[] = {
    {"wt", &WriteSegmentWt},  // CacheMode::kWriteThrough
    {"wb", &WriteSegmentWb},  // CacheMode::kWriteBack
    {"wa", &WriteSegmentWa},  // CacheMode::kWriteAround
    {"pt", &WriteSegmentPt},  // CacheMode::kPassThrough
};

}  // namespace

const ModeOps& OpsFor(CacheMode mode) { return kModes[static_cast<int>(mode)]; }

CacheMode ResolveEffectiveMode(Engine& engine, CacheMode mode, uint64_t offset, uint64_t length,
                               bool is_write, uint64_t* stream_bytes) {
  if (stream_bytes != nullptr) *stream_bytes = 0;
  // A failed SSD is out of the data path (ssd_health.h) until reset_health.
  if (mode == CacheMode::kPassThrough || engine.ssd_health.failed()) return CacheMode::kPassThrough;
  const bool bypass = engine.sequential.observe(offset, length, is_write, stream_bytes);
  return bypass ? CacheMode::kPassThrough : mode;
}

}  // namespace tiercache
