// Write-through (SRT "Enhanced"): the write goes to the core and, when the line is cached or
// admitted, to the SSD too; acknowledged after both. Dirty sectors stay dirty (their SSD copy is
// updated too), so write-back data left from an earlier mode is never lost or reordered.
#include "cachelib/engine/io_paths.h"

namespace tiercache {
namespace {

void WtLocked(Request& req, const Segment& seg) {
  Engine& e = req.engine;
  Shard& shard = e.shard_for(seg.core_line);
  uint32_t line_id;
  bool dirty_data = false;
  {
    std::lock_guard lock(shard.mu);
    line_id = LookupOrAdmit(req, seg, shard).id;
    if (line_id != Shard::kNoLine) {
      dirty_data = (shard.dirty(line_id) & seg.mask()).any();
      shard.set_write_only(line_id, true);
    }
  }
  WriteCoreAndSsd(req, seg, line_id != Shard::kNoLine, line_id, dirty_data,
                  req.write_buf + seg.buf_offset);
}

}  // namespace

void WriteSegmentWt(Request& req, const Segment& seg) {
  LockThen(req, seg, true, [&req, seg] {
    UntrustThen(req, seg, false, [&req, seg] { WtLocked(req, seg); });
  });
}

}  // namespace tiercache
