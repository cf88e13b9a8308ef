// The per-segment I/O paths of the engine, one file per cache mode (wt.cpp, wb.cpp, wa.cpp,
// pt.cpp) plus the read path shared by all modes (read_path.cpp, entered by runs of segments
// through read_batch.h) and trim/zeroing (trim_zero.cpp).
// Each runs on the request's loop, takes the segment's core-line lock, does its I/O and calls
// req.segment_done() exactly once. Helpers shared by the paths live here too.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>

#include "cachelib/common/pooled_once.h"
#include "cachelib/engine/request.h"

namespace tiercache {

// The read path (read_path.cpp), in two steps so a batch of segments (read_batch.h) can look
// them all up under one shard lock. What a read finds of a segment: its line, and the sectors to
// read from the SSD (valid ones; in pass-through only the dirty ones).
struct ReadLookup {
  uint32_t line_id = Shard::kNoLine;
  SectorBits from_ssd;
  bool whole = false;  // a stream bypass's line holds every sector of the segment
};
// REQUIRES the segment's shard mutex and its shared core-line lock. Touches the line for the
// policies when any sector comes from the SSD.
ReadLookup LookUpRead(Request& req, Shard& shard, const Segment& seg);
// Under the segment's shared lock, after LookUpRead: reads the SSD and core sectors, counts them,
// releases the lock (after the reply, a fill of the core sectors keeps it until done) and calls
// req.segment_done().
void ReadLookedUp(Request& req, const Segment& seg, const ReadLookup& found);
// Once the segment's shared lock is held: LookUpRead, then ReadLookedUp.
void ReadLocked(Request& req, const Segment& seg);
void WriteSegmentWt(Request& req, const Segment& seg);
void WriteSegmentWb(Request& req, const Segment& seg);
void WriteSegmentWa(Request& req, const Segment& seg);
void WriteSegmentPt(Request& req, const Segment& seg);
void DiscardSegment(Request& req, const Segment& seg);
void WriteZeroesSegment(Request& req, const Segment& seg);

// Under the segment's exclusive lock, before a write changes its sectors on the SSD or the core:
// the line becomes untrusted, and if a durable record may trust a clean copy of those sectors
// (the line's, or a limbo line's for the same core line), `then` waits for a persist that stops
// it (docs/io-paths.md "Warm after a crash"); otherwise it runs inline. `ssd_only` (write-back):
// a write of a whole trusted line moves the block to a fresh line instead of waiting.
template <class Fn>
void UntrustThen(Request& req, const Segment& seg, bool ssd_only, Fn&& then);

// Runs `then` on `loop` once `core_line` is locked (inline if free now).
void LockLineThen(Engine& engine, EventLoop* loop, uint64_t core_line, bool exclusive,
                  EventLoop::Task then);
// Runs `then` once the segment's core line is locked, and for a write not aligned to 4096 bytes
// once its partial sectors are filled too (partial_sectors.h).
template <class Fn>
void LockThen(Request& req, const Segment& seg, bool exclusive, Fn&& then);
void UnlockLine(Engine& engine, uint64_t core_line, bool exclusive);

// Calls fn(first_sector, count, in_set) for each maximal run of sectors in [first, first+n) that
// are all in `set` or all not in it.
// (A template, not a std::function: a closure capturing several references would be allocated.)
template <class Fn>
void ForEachRun(const SectorBits& set, uint32_t first, uint32_t n, Fn&& fn) {
  uint32_t run_start = first;
  for (uint32_t s = first + 1; s <= first + n; ++s) {
    if (s == first + n || set.test(s) != set.test(run_start)) {
      fn(run_start, s - run_start, set.test(run_start));
      run_start = s;
    }
  }
}

// Joins several device I/Os: done(first error) runs after the last one completes. The join and
// `done` live in slots of the loop's SlotPool until then, and add()'s callbacks hold only the
// join's address (inline in std::function): a join costs no heap allocation.
class IoJoin {
 public:
  template <class Fn>
  static IoJoin* Make(Fn&& done) {
    return MakeWith(PooledOnce(std::forward<Fn>(done)));
  }
  // One callback per I/O, each called exactly once; call add() for all before any can complete
  // (i.e. before returning to the loop).
  IoCallback add();
  // Completes at once if add() was never called. The join frees itself once done ran.
  void seal();

 private:
  static IoJoin* MakeWith(IoCallback done);
  uint32_t pending_ = 1;  // the seal() reference
  Status first_;
  IoCallback done_;
  void arrive(Status s);
};

// Writes [first, first+count) sectors of `line` on the SSD from `src` (segment-relative buffer).
void SsdWriteSectors(Engine& e, uint32_t line_id, uint32_t first, uint32_t count,
                     const std::byte* src, IoCallback cb);
void SsdReadSectors(Engine& e, uint32_t line_id, uint32_t first, uint32_t count, std::byte* dst,
                    IoCallback cb);

// REQUIRES shard.mu. Drops the clean copies of `mask` sectors of line `id` (dirty ones stay).
void InvalidateClean(Engine& e, Shard& shard, uint32_t id, const SectorBits& mask);

// The line a write goes to, or why there is none: the admission policy refused the block
// (`refused`), or no line could be had now: every free line waits in limbo until persist epoch
// `wait_need` (then Engine::line_after_wait, with `warm`, may find one), or, without one, every
// candidate is dirty or busy (the cleaner must run).
struct LineChoice {
  uint32_t id = Shard::kNoLine;
  bool refused = false;
  bool warm = false;
  uint64_t wait_need = 0;
};
// REQUIRES shard.mu. The segment's line, touched; or, on a miss, a new line if admission agrees
// and one can be had. A miss clears req.all_cached.
LineChoice LookupOrAdmit(Request& req, const Segment& seg, Shard& shard);

// For a write that bypasses the cache (write-around, pass-through, zeroing): under the shard lock,
// decides whether the SSD copy must be updated too (the segment has dirty sectors: dropping them
// could resurrect older data after a crash) or the clean copies can simply be dropped (done here).
// Returns the line id to update, or nullopt when only the core is written.
std::optional<uint32_t> DirtyLineToUpdateOrDropClean(Engine& e, const Segment& seg);

// Under the segment's exclusive lock: writes the segment's bytes from `src` (nullptr: zeros) to
// the core and, when `on_ssd`, to the SSD copy in line `line_id`; once both completed marks those
// sectors valid (or drops clean copies on error), releases the lock and finishes the segment.
// When only the SSD write failed the client's write still succeeds and the SSD copy is dropped
// (DropSsdCopyAfterCoreWrite). `dirty_data`: some of the segment's sectors are dirty in that
// line (as the caller saw under the shard lock; the exclusive line lock keeps them so), so the
// SSD write is dirty data a FLUSH must make durable (Engine::note_dirty_data_written).
void WriteCoreAndSsd(Request& req, const Segment& seg, bool on_ssd, uint32_t line_id,
                     bool dirty_data, const std::byte* src);

// The continuations of LockThen and UntrustThen wait in pool slots: a closure over the request and
// its segment (32 bytes) would cost std::function a heap allocation.
void LockThenTask(Request& req, const Segment& seg, bool exclusive, EventLoop::Task then);
void UntrustThenTask(Request& req, const Segment& seg, bool ssd_only, EventLoop::Task then);

template <class Fn>
void LockThen(Request& req, const Segment& seg, bool exclusive, Fn&& then) {
  // FillPartialSectorsThen drops `then` when its reads fail: a pooled one would keep its slot.
  if (req.partial && exclusive) {
    return LockThenTask(req, seg, exclusive, EventLoop::Task(std::forward<Fn>(then)));
  }
  LockThenTask(req, seg, exclusive, PooledOnce(std::forward<Fn>(then)));
}

template <class Fn>
void UntrustThen(Request& req, const Segment& seg, bool ssd_only, Fn&& then) {
  UntrustThenTask(req, seg, ssd_only, PooledOnce(std::forward<Fn>(then)));
}

}  // namespace tiercache
