// Write-back (SRT "Maximized"): the write goes to the SSD only and is acknowledged then; the sectors
// become dirty and their record is staged, reaching the SSD at the next FLUSH/FUA. The cleaner
// writes them to the core later. With no line to spare (all dirty or busy) the write goes to the
// core instead, and the cleaner is woken.
#include "cachelib/engine/cleaner.h"
#include "cachelib/engine/io_paths.h"

namespace tiercache {
namespace {

void WbLocked(Request& req, const Segment& seg) {
  Engine& e = req.engine;
  Shard& shard = e.shard_for(seg.core_line);
  CacheLine* line;
  {
    std::lock_guard lock(shard.mu);
    line = LookupOrAdmit(req, seg, shard);
  }
  const std::byte* src = req.write_buf + seg.buf_offset;
  if (line == nullptr) {
    req.bypassed = true;
    e.cleaner->kick();
    EngineCounters::add(e.counters.bytes_written_core, seg.bytes());
    e.core.write(seg.core_offset(e.line_size), std::span<const std::byte>(src, seg.bytes()), {},
                 [&req, seg](Status s) {
                   UnlockLine(req.engine, seg.core_line, true);
                   req.segment_done(std::move(s));
                 });
    return;
  }
  const uint32_t line_id = line->id;
  SsdWriteSectors(e, line_id, seg.first_sector, seg.sectors, src, [&req, seg, line_id](Status s) {
    Engine& e = req.engine;
    {
      Shard& sh = e.shard_for(seg.core_line);
      std::lock_guard lock(sh.mu);
      CacheLine& l = sh.line(line_id);
      ++l.write_gen;
      if (s.ok()) {
        SectorBits old_dirty = l.dirty;
        l.valid |= seg.mask();
        l.dirty |= seg.mask();
        if (l.dirty != old_dirty) e.dirty_bits_changed(sh, l, old_dirty);
      } else {
        InvalidateClean(l, seg.mask());
      }
    }
    UnlockLine(e, seg.core_line, true);
    e.maybe_kick_cleaner();
    req.segment_done(std::move(s));
  });
}

}  // namespace

void WriteSegmentWb(Request& req, const Segment& seg) {
  LockThen(req, seg, true, [&req, seg] { WbLocked(req, seg); });
}

}  // namespace tiercache
