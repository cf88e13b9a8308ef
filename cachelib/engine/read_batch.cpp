#include "cachelib/engine/read_batch.h"

#include <array>
#include <cassert>

#include "cachelib/common/pooled_once.h"
#include "cachelib/engine/io_paths.h"
#include "cachelib/engine/ssd_errors.h"

namespace tiercache {
namespace {

// Ends a stretch of whole hits (core lines [first_line, first_line + lines) of `req`): unlocks
// its lines under one shard lock, then finishes its segments at once.
void EndStretch(Request& req, uint64_t first_line, uint32_t lines, Status s) {
  Shard& shard = req.engine.shard_for(first_line);
  {
    std::lock_guard lock(shard.mu);
    for (uint32_t i = 0; i < lines; ++i) shard.locks().unlock(first_line + i, false);
  }
  req.segments_done(lines, std::move(s));  // may delete req
}

// After a merged SSD read of lines [first_line, first_line + lines) failed: reads each line's
// sectors again alone, each recovered as SsdReadOrRecover does (RecoverSsdRead), so only the
// lines whose own reads fail count an error and lose their clean copies, as when every line was
// read on its own. Their bytes were counted by the merged read. `done` gets the first error.
void RereadAlone(Request& req, uint64_t first_line, uint32_t lines, IoCallback done) {
  Engine& e = req.engine;
  Shard& shard = e.shard_for(first_line);
  IoJoin* join = IoJoin::Make(std::move(done));
  for (uint32_t i = 0; i < lines; ++i) {
    const Segment seg = req.segment_at(first_line + i);
    uint32_t line_id;
    {
      // The shared line lock keeps the mapping (no eviction while locked).
      std::lock_guard lock(shard.mu);
      line_id = shard.lookup(seg.core_line);
    }
    std::byte* dst = req.read_buf + seg.buf_offset;
    e.ssd.read(e.ssd_offset(line_id, seg.first_sector), std::span<std::byte>(dst, seg.bytes()),
               PooledOnce([&e, seg, line_id, dst, cb = join->add()](Status s) mutable {
                 if (s.ok()) return cb(std::move(s));
                 RecoverSsdRead(e, seg.core_line, line_id, seg.first_sector, seg.sectors, dst,
                                std::move(s), std::move(cb));
               }));
  }
  join->seal();
}

// One SSD read of `bytes` at `ssd_offset` into `dst`: the sectors of lines [first_line,
// first_line + lines), contiguous on the SSD and in the request's buffer.
void ReadMerged(Request& req, uint64_t first_line, uint32_t lines, uint64_t ssd_offset,
                std::byte* dst, uint64_t bytes, IoCallback then) {
  Engine& e = req.engine;
  EngineCounters::add(e.counters.bytes_read_ssd, bytes);
  e.ssd.read(ssd_offset, std::span<std::byte>(dst, bytes),
             PooledOnce([&req, first_line, lines, then = std::move(then)](Status s) mutable {
               if (s.ok()) return then(std::move(s));
               RereadAlone(req, first_line, lines, std::move(then));
             }));
}

// Reads a stretch of whole hits (consecutive segments whose every sector comes from the SSD,
// their lines locked, `found` their lookups) with one SSD read per part contiguous on the SSD.
void ReadStretch(Request& req, std::span<const Segment> segs, const ReadLookup* found) {
  Engine& e = req.engine;
  const uint64_t first_line = segs.front().core_line;
  const uint32_t lines = uint32_t(segs.size());
  uint64_t bytes = 0;
  for (const Segment& seg : segs) bytes += seg.bytes();
  EngineCounters::add(e.counters.read_hit_bytes, bytes);
  req.any_ssd = true;
  auto end = [&req, first_line, lines](Status s) { EndStretch(req, first_line, lines, s); };
  // A part ends where the next line does not continue it on the SSD (or at the device's limit).
  auto part_end = [&](uint32_t i, uint64_t* part_bytes) {
    const uint64_t start = e.ssd_offset(found[i].line_id, segs[i].first_sector);
    *part_bytes = segs[i].bytes();
    uint32_t j = i + 1;
    while (j < lines &&
           e.ssd_offset(found[j].line_id, segs[j].first_sector) == start + *part_bytes &&
           *part_bytes + segs[j].bytes() <= e.ssd.max_io_bytes()) {
      *part_bytes += segs[j++].bytes();
    }
    return j;
  };
  uint32_t parts = 0;
  uint64_t part_bytes = 0;
  for (uint32_t i = 0; i < lines; ++parts) i = part_end(i, &part_bytes);
  IoJoin* join = parts > 1 ? IoJoin::Make(end) : nullptr;
  for (uint32_t i = 0; i < lines;) {
    const uint32_t j = part_end(i, &part_bytes);
    ReadMerged(req, first_line + i, j - i, e.ssd_offset(found[i].line_id, segs[i].first_sector),
               req.read_buf + segs[i].buf_offset, part_bytes,
               join != nullptr ? join->add() : IoCallback(PooledOnce(end)));
    i = j;
  }
  if (join != nullptr) join->seal();
}

// A bypassed stream's run (up to 64 KiB of one shard) of which at least 3/4 of the lines hold all
// of their sectors reads those lines from the SSD: the part of a loop the cache kept stays a hit,
// also once a few of its lines were evicted. A run held less than that comes from the core whole,
// as bypass wants: SSD pieces between core pieces would cut the disk's sequential stream.
void ServeCachedRunFromSsd(Engine& e, Shard& shard, std::span<const Segment> run, uint32_t locked,
                           std::array<ReadLookup, Request::kMaxRun>& found) {
  uint32_t whole = 0;
  for (uint32_t i = 0; i < run.size(); ++i) {
    if ((locked >> i & 1) != 0 && found[i].whole) ++whole;
  }
  if (4 * whole < 3 * run.size()) return;
  for (uint32_t i = 0; i < run.size(); ++i) {
    if ((locked >> i & 1) == 0 || !found[i].whole) continue;
    if (found[i].from_ssd.none() && shard.touch(found[i].line_id, false)) e.note_listed();
    found[i].from_ssd = run[i].mask();
  }
}

}  // namespace

void ReadRun(Request& req, std::span<const Segment> run) {
  assert(!run.empty() && run.size() <= Request::kMaxRun);
  Shard& shard = req.engine.shard_for(run.front().core_line);
  std::array<ReadLookup, Request::kMaxRun> found;
  uint32_t locked = 0;  // bit i: run[i]'s lock was free and is held now
  {
    std::lock_guard lock(shard.mu);
    for (uint32_t i = 0; i < run.size(); ++i) {
      const Segment& seg = run[i];
      if (shard.locks().try_lock(seg.core_line, false)) {
        locked |= 1u << i;
        found[i] = LookUpRead(req, shard, seg);
        continue;
      }
      // Queued FIFO as a lone segment always was; once granted, on this loop, read alone.
      EventLoop::Task resume = PooledOnce([&req, seg] { ReadLocked(req, seg); });
      const bool now = shard.locks().lock_or_wait(seg.core_line, false, req.loop, resume);
      assert(!now);
      (void)now;
    }
    if (req.stream_bypass) ServeCachedRunFromSsd(req.engine, shard, run, locked, found);
  }
  // Whole hits are read by stretches, the other locked segments alone.
  for (uint32_t i = 0; i < run.size();) {
    auto whole_hit = [&](uint32_t k) {
      return (locked >> k & 1) != 0 && found[k].from_ssd == run[k].mask();
    };
    if (!whole_hit(i)) {
      if ((locked >> i & 1) != 0) ReadLookedUp(req, run[i], found[i]);
      ++i;
      continue;
    }
    uint32_t j = i + 1;
    while (j < run.size() && whole_hit(j)) ++j;
    ReadStretch(req, run.subspan(i, j - i), &found[i]);
    i = j;
  }
}

}  // namespace tiercache
