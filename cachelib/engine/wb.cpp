// Write-back (SRT "Maximized"): the write goes to the SSD only and is acknowledged then; the sectors
// become dirty and their record is staged, reaching the SSD at the next FLUSH/FUA. The cleaner
// writes them to the core later. With no line to spare (all dirty or busy) the write goes to the
// core instead, and the cleaner is woken (not when admission refused the block: that is no
// shortage of clean lines).
#include "cachelib/engine/cleaner.h"
#include "cachelib/engine/io_paths.h"
#include "cachelib/engine/ssd_errors.h"

namespace tiercache {
namespace {

// The SSD refused the write: write the segment to the core instead (still under the exclusive
// lock), then drop the SSD copy of its sectors (dirty ones only once a core flush made the new data
// durable: until then their old SSD data is the newest durable copy). If the core fails too, the
// client gets the error and dirty sectors stay dirty.
void WbSsdWriteFailed(Request& req, const Segment& seg, uint32_t line_id, const Status& error) {
  Engine& e = req.engine;
  NoteSsdError(e, SsdErrorKind::kWrite, error);
  EngineCounters::add(e.counters.bytes_written_core, seg.bytes());
  const std::byte* src = req.write_buf + seg.buf_offset;
  CoreWrite(req, seg.core_offset(e.line_size), std::span<const std::byte>(src, seg.bytes()),
            [&req, seg, line_id](Status core_status) {
              Engine& e = req.engine;
              auto finish = [&req, seg](Status s) {
                UnlockLine(req.engine, seg.core_line, true);
                req.segment_done(std::move(s));
              };
              if (core_status.ok()) return DropSsdCopyAfterCoreWrite(e, seg, line_id, finish);
              {
                Shard& sh = e.shard_for(seg.core_line);
                std::lock_guard lock(sh.mu);
                sh.set_clean_pending(line_id, false);
                InvalidateClean(e, sh, line_id, seg.mask());
              }
              finish(std::move(core_status));
            });
}

// Writes the segment to its line, or to the core when `choice` has none.
void WbWrite(Request& req, const Segment& seg, const LineChoice& choice) {
  Engine& e = req.engine;
  const uint32_t line_id = choice.id;
  const std::byte* src = req.write_buf + seg.buf_offset;
  if (line_id == Shard::kNoLine) {
    req.bypassed = true;
    // Only a lack of clean lines is the cleaner's business; a refused block simply goes to the core.
    if (!choice.refused) e.cleaner->kick();
    EngineCounters::add(e.counters.bytes_written_core, seg.bytes());
    CoreWrite(req, seg.core_offset(e.line_size), std::span<const std::byte>(src, seg.bytes()),
                 [&req, seg](Status s) {
                   UnlockLine(req.engine, seg.core_line, true);
                   req.segment_done(std::move(s));
                 });
    return;
  }
  // Pooled: a closure over the request, segment and line is too big for std::function's buffer.
  auto written = PooledOnce([&req, seg, line_id](Status s) {
    Engine& e = req.engine;
    if (!s.ok()) return WbSsdWriteFailed(req, seg, line_id, s);
    e.note_dirty_data_written();
    {
      Shard& sh = e.shard_for(seg.core_line);
      std::lock_guard lock(sh.mu);
      sh.set_clean_pending(line_id, false);
      sh.set_valid(line_id, sh.valid(line_id) | seg.mask());
      e.set_dirty(sh, line_id, sh.dirty(line_id) | seg.mask());
    }
    UnlockLine(e, seg.core_line, true);
    req.segment_done(Status::Ok());
  });
  SsdWriteSectors(e, line_id, seg.first_sector, seg.sectors, src, std::move(written));
}

void WbLocked(Request& req, const Segment& seg) {
  Engine& e = req.engine;
  Shard& shard = e.shard_for(seg.core_line);
  LineChoice choice;
  {
    std::lock_guard lock(shard.mu);
    choice = LookupOrAdmit(req, seg, shard);
    // Dirty now; once cleaned, trust rounds may trust it again.
    if (choice.id != Shard::kNoLine) shard.set_write_only(choice.id, false);
  }
  if (choice.wait_need == 0) return WbWrite(req, seg, choice);
  // Admitted, but every free line waits in limbo for its free record: the persist that frees
  // them is quicker than the core, and keeps the write on the SSD as write-back promises.
  e.when_persisted(choice.wait_need, [&req, seg, choice](Status s) mutable {
    if (s.ok()) {
      Shard& sh = req.engine.shard_for(seg.core_line);
      std::lock_guard lock(sh.mu);
      choice.id = req.engine.line_after_wait(sh, seg.core_line, choice.warm);
    }
    WbWrite(req, seg, choice);
  });
}

}  // namespace

void WriteSegmentWb(Request& req, const Segment& seg) {
  LockThen(req, seg, true, [&req, seg] {
    UntrustThen(req, seg, true, [&req, seg] { WbLocked(req, seg); });
  });
}

}  // namespace tiercache
