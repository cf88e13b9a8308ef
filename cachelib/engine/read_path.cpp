// The read path, shared by every mode: sectors valid in the cache come from the SSD, the rest from
// the core, in one pass; then, after the reply, the core sectors are filled into the cache
// (unless pass-through). In pass-through only dirty sectors come from the SSD: the cache must never
// hide newer data, but otherwise stays out of the way. Runs under the core line's shared lock, which
// keeps writes out and the line from being evicted until the fill is done.
#include <cstdlib>
#include <cstring>

#include "cachelib/engine/io_paths.h"
#include "cachelib/engine/ssd_errors.h"

namespace tiercache {
namespace {

// Shared so it can ride in a copyable std::function until the fill's writes complete.
using AlignedBuffer = std::shared_ptr<std::byte>;

AlignedBuffer AllocAligned(uint64_t bytes) {
  return AlignedBuffer(static_cast<std::byte*>(std::aligned_alloc(kSectorSize, bytes)), std::free);
}

// The end of a background fill: gives back what FillAfterReply owns.
void EndFill(Engine& e, const Segment& seg) {
  e.release_fill(seg.bytes());
  UnlockLine(e, seg.core_line, false);
  e.inflight.fetch_sub(1, std::memory_order_release);
}

// Writes `fill` sectors (data in `data`, segment-relative) to line `line_id` (kNoLine: none),
// then ends the fill.
void WriteFill(Engine& e, const Segment& seg, SectorBits fill, uint32_t line_id,
               AlignedBuffer data) {
  if (line_id == Shard::kNoLine || fill.none()) return EndFill(e, seg);
  std::byte* base = data.get();
  auto join = IoJoin::Make([&e, seg, fill, line_id, data = std::move(data)](Status s) {
    if (s.ok()) {
      Shard& sh = e.shard_for(seg.core_line);
      std::lock_guard lock(sh.mu);
      // Still ours: the shared lock kept writers out and the line from being evicted.
      sh.set_valid(line_id, sh.valid(line_id) | fill);
      // What the core returned may be an unflushed write: trusted after a core flush covers it.
      e.untrust(sh, line_id);
      // Read data, as a hit's: a write-only line (already untrusted, so the untrust listed
      // nothing) is listed again for the rounds (docs/io-paths.md).
      if (sh.set_write_only(line_id, false)) e.note_listed();
      e.note_changed(line_id);
    }
    EndFill(e, seg);
  });
  ForEachRun(fill, seg.first_sector, seg.sectors, [&](uint32_t first, uint32_t n, bool in) {
    if (!in) return;
    // A failed fill is dropped (its sectors stay invalid), only counted.
    SsdWriteSectors(e, line_id, first, n, base + uint64_t(first - seg.first_sector) * kSectorSize,
                    NotingSsdErrors(e, SsdErrorKind::kWrite, join->add()));
  });
  join->seal();
}

// Background fill of `fill` sectors (data in `data`, segment-relative) after the reply was sent.
// Owns the segment's shared lock, `seg.bytes()` of the engine's fill backlog
// (Engine::reserve_fill) and one count of e.inflight; EndFill gives them back. An admitted block
// for which every free line waits in limbo is filled once the persist that frees them is done.
void FillAfterReply(Engine& e, Segment seg, SectorBits fill, AlignedBuffer data) {
  Shard& shard = e.shard_for(seg.core_line);
  Engine::AdmittedLine line;
  {
    std::lock_guard lock(shard.mu);
    line.id = shard.lookup(seg.core_line);
    if (line.id == Shard::kNoLine) line = e.admit_line(shard, seg.core_line, false).value_or(line);
    // Another reader may have filled some already.
    if (line.id != Shard::kNoLine) fill &= ~shard.valid(line.id);
  }
  if (line.wait_need == 0) return WriteFill(e, seg, fill, line.id, std::move(data));
  e.when_persisted(line.wait_need, [&e, seg, fill, warm = line.warm, data](Status s) mutable {
    uint32_t id = Shard::kNoLine;
    if (s.ok()) {
      Shard& sh = e.shard_for(seg.core_line);
      std::lock_guard lock(sh.mu);
      id = e.line_after_wait(sh, seg.core_line, warm);
      if (id != Shard::kNoLine) fill &= ~sh.valid(id);
    }
    WriteFill(e, seg, fill, id, std::move(data));
  });
}

}  // namespace

ReadLookup LookUpRead(Request& req, Shard& shard, const Segment& seg) {
  ReadLookup found;
  found.line_id = shard.lookup(seg.core_line);
  if (found.line_id != Shard::kNoLine) {
    const SectorBits mask = seg.mask();
    if (req.mode != CacheMode::kPassThrough) {
      found.from_ssd = shard.valid(found.line_id) & mask;
    } else {
      found.from_ssd = shard.dirty(found.line_id) & mask;
      found.whole = req.stream_bypass && (shard.valid(found.line_id) & mask) == mask;
    }
    if (found.from_ssd.any() && shard.touch(found.line_id, false)) req.engine.note_listed();
  }
  return found;
}

void ReadLookedUp(Request& req, const Segment& seg, const ReadLookup& found) {
  Engine& e = req.engine;
  const bool pass_through = req.mode == CacheMode::kPassThrough;
  const SectorBits& from_ssd = found.from_ssd;
  const SectorBits from_core = seg.mask() & ~from_ssd;
  // One popcount, not two (a 256-bit bitset's count() is four library calls without -mpopcnt).
  const uint64_t ssd_sectors = from_ssd.count();
  EngineCounters::add(e.counters.read_hit_bytes, ssd_sectors * kSectorSize);
  EngineCounters::add(e.counters.read_miss_bytes, (seg.sectors - ssd_sectors) * kSectorSize);
  if (from_ssd.any()) req.any_ssd = true;
  if (from_core.any()) req.any_core = true;
  if (pass_through && from_ssd.none()) req.bypassed = true;
  std::byte* out = req.read_buf + seg.buf_offset;
  auto join = IoJoin::Make([&req, seg, from_core, pass_through](Status s) {
    Engine& e = req.engine;
    if (!s.ok() || from_core.none() || pass_through || !e.reserve_fill(seg.bytes())) {
      UnlockLine(e, seg.core_line, false);
      return req.segment_done(std::move(s));
    }
    // Copy what the core returned, reply, then fill the cache with the copy.
    AlignedBuffer copy = AllocAligned(seg.bytes());
    std::memcpy(copy.get(), req.read_buf + seg.buf_offset, seg.bytes());
    e.inflight.fetch_add(1, std::memory_order_relaxed);
    req.segment_done(Status::Ok());  // may delete req
    FillAfterReply(e, seg, from_core, std::move(copy));
  });
  ForEachRun(from_ssd, seg.first_sector, seg.sectors, [&](uint32_t first, uint32_t n, bool ssd) {
    std::byte* dst = out + uint64_t(first - seg.first_sector) * kSectorSize;
    if (ssd) {
      SsdReadOrRecover(e, seg.core_line, found.line_id, first, n, dst, join->add());
    } else {
      uint64_t bytes = uint64_t(n) * kSectorSize;
      EngineCounters::add(e.counters.bytes_read_core, bytes);
      CoreRead(req, seg.core_line * e.line_size + uint64_t(first) * kSectorSize,
               std::span<std::byte>(dst, bytes), join->add());
    }
  });
  join->seal();
}

void ReadLocked(Request& req, const Segment& seg) {
  Shard& shard = req.engine.shard_for(seg.core_line);
  ReadLookup found;
  {
    std::lock_guard lock(shard.mu);
    found = LookUpRead(req, shard, seg);
  }
  ReadLookedUp(req, seg, found);
}

}  // namespace tiercache
