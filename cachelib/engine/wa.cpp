// Write-around: the write goes to the core only and drops cached clean copies of the sectors.
// Sectors that are dirty in the cache are updated on the SSD as well (and stay dirty): dropping them
// before the core write is durable could resurrect older data after a crash.
#include "cachelib/engine/io_paths.h"

namespace tiercache {
namespace {

void WaLocked(Request& req, const Segment& seg) {
  Engine& e = req.engine;
  const std::optional<uint32_t> dirty_line = DirtyLineToUpdateOrDropClean(e, seg);
  const bool keep = dirty_line.has_value();
  const uint32_t line_id = dirty_line.value_or(0);
  if (!keep) req.bypassed = true;
  // The cache keeps nothing of this write (dirty sectors aside): a miss by the byte counters.
  EngineCounters::add(keep ? e.counters.write_hit_bytes : e.counters.write_miss_bytes, seg.bytes());
  // Kept only for its dirty sectors: the SSD write is dirty data.
  WriteCoreAndSsd(req, seg, keep, line_id, keep, req.write_buf + seg.buf_offset);
}

}  // namespace

void WriteSegmentWa(Request& req, const Segment& seg) {
  LockThen(req, seg, true, [&req, seg] {
    UntrustThen(req, seg, false, [&req, seg] { WaLocked(req, seg); });
  });
}

}  // namespace tiercache
