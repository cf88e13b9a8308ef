// Write-through (SRT "Enhanced"): the write goes to the core and, when the line is cached or
// admitted, to the SSD too; acknowledged after both. Dirty sectors stay dirty (their SSD copy is
// updated too), so write-back data left from an earlier mode is never lost or reordered.
#include "cachelib/engine/io_paths.h"
#include "cachelib/engine/ssd_errors.h"

namespace tiercache {
namespace {

void WtLocked(Request& req, const Segment& seg) {
  Engine& e = req.engine;
  Shard& shard = e.shard_for(seg.core_line);
  uint32_t line_id;
  {
    std::lock_guard lock(shard.mu);
    line_id = LookupOrAdmit(req, seg, shard).id;
  }
  const bool cached = line_id != Shard::kNoLine;
  auto ssd_status = std::make_shared<Status>();
  auto join = IoJoin::Make([&req, seg, cached, line_id, ssd_status](Status s) {
    FinishCoreAndSsdWrite(req, seg, cached, line_id, std::move(s), *ssd_status);
  });
  const std::byte* src = req.write_buf + seg.buf_offset;
  EngineCounters::add(e.counters.bytes_written_core, seg.bytes());
  CoreWrite(req, seg.core_offset(e.line_size), std::span<const std::byte>(src, seg.bytes()),
               join->add());
  if (cached) {
    SsdWriteSectors(e, line_id, seg.first_sector, seg.sectors, src,
                    KeepSsdWriteStatus(e, ssd_status, join->add()));
  }
  join->seal();
}

}  // namespace

void WriteSegmentWt(Request& req, const Segment& seg) {
  LockThen(req, seg, true, [&req, seg] { WtLocked(req, seg); });
}

}  // namespace tiercache
