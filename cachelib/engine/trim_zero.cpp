// TRIM and WRITE_ZEROES, the same in every mode. TRIM drops the cached sectors (dirty ones too: the
// protocol leaves trimmed contents unspecified), frees a line it empties, and passes the discard
// to the core. WRITE_ZEROES
// zeroes the core; sectors dirty in the cache get zeros on the SSD as well (and stay dirty) so that
// a crash can never bring back data older than the zeroing; clean copies are dropped.
#include "cachelib/engine/io_paths.h"

namespace tiercache {
namespace {

void DiscardLocked(Request& req, const Segment& seg) {
  Engine& e = req.engine;
  Shard& shard = e.shard_for(seg.core_line);
  {
    std::lock_guard lock(shard.mu);
    const uint32_t id = shard.lookup(seg.core_line);
    if (id != Shard::kNoLine) {
      shard.set_valid(id, shard.valid(id) & ~seg.mask());
      shard.set_clean_pending(id, false);
      e.set_dirty(shard, id, shard.dirty(id) & ~seg.mask());
      // A line left without sectors is free for other data, as bcache and dm-cache do on discard.
      if (shard.valid(id).none()) {
        e.drop_empty_line(shard, id);
      } else {
        e.note_changed(id);
      }
    }
  }
  e.core.discard(seg.core_offset(e.line_size), seg.bytes(), [&req, seg](Status s) {
    UnlockLine(req.engine, seg.core_line, true);
    // Discard is advisory on the core (a file system may not support it): the cache side is done.
    req.segment_done(s.code() == Status::Code::kNotSupported ? Status::Ok() : std::move(s));
  });
}

void ZeroLocked(Request& req, const Segment& seg) {
  Engine& e = req.engine;
  const std::optional<uint32_t> dirty_line = DirtyLineToUpdateOrDropClean(e, seg);
  const bool keep = dirty_line.has_value();
  const uint32_t line_id = dirty_line.value_or(0);
  WriteCoreAndSsd(req, seg, keep, line_id, keep, nullptr);  // kept only for dirty sectors
}

}  // namespace

void DiscardSegment(Request& req, const Segment& seg) {
  LockThen(req, seg, true, [&req, seg] {
    UntrustThen(req, seg, false, [&req, seg] { DiscardLocked(req, seg); });
  });
}

void WriteZeroesSegment(Request& req, const Segment& seg) {
  LockThen(req, seg, true, [&req, seg] {
    UntrustThen(req, seg, false, [&req, seg] { ZeroLocked(req, seg); });
  });
}

}  // namespace tiercache
