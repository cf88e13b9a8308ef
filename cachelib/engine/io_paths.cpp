#include "cachelib/engine/io_paths.h"

namespace tiercache {

void LockLineThen(Engine& engine, EventLoop* loop, uint64_t core_line, bool exclusive,
                  EventLoop::Task then) {
  Shard& shard = engine.shard_for(core_line);
  bool now;
  {
    std::lock_guard lock(shard.mu);
    now = shard.locks().lock_or_wait(core_line, exclusive, loop, then);
  }
  if (now) then();
}

void UnlockLine(Engine& engine, uint64_t core_line, bool exclusive) {
  Shard& shard = engine.shard_for(core_line);
  std::lock_guard lock(shard.mu);
  shard.locks().unlock(core_line, exclusive);
}

void ForEachRun(const SectorBits& set, uint32_t first, uint32_t n,
                const std::function<void(uint32_t, uint32_t, bool)>& fn) {
  uint32_t run_start = first;
  for (uint32_t s = first + 1; s <= first + n; ++s) {
    if (s == first + n || set.test(s) != set.test(run_start)) {
      fn(run_start, s - run_start, set.test(run_start));
      run_start = s;
    }
  }
}

std::shared_ptr<IoJoin> IoJoin::Make(IoCallback done) {
  auto join = std::make_shared<IoJoin>();
  join->done_ = std::move(done);
  return join;
}

IoCallback IoJoin::add() {
  ++pending_;
  return [self = shared_from_this()](Status s) { self->arrive(std::move(s)); };
}

void IoJoin::seal() { arrive(Status::Ok()); }

void IoJoin::arrive(Status s) {
  if (!s.ok() && first_.ok()) first_ = std::move(s);
  if (--pending_ == 0) {
    IoCallback done = std::move(done_);
    done(std::move(first_));
  }
}

void SsdWriteSectors(Engine& e, uint32_t line_id, uint32_t first, uint32_t count,
                     const std::byte* src, IoCallback cb) {
  uint64_t bytes = uint64_t(count) * kSectorSize;
  EngineCounters::add(e.counters.bytes_written_ssd, bytes);
  e.ssd.write(e.ssd_offset(line_id, first),
              std::span<const std::byte>(src, bytes), {}, std::move(cb));
}

void SsdReadSectors(Engine& e, uint32_t line_id, uint32_t first, uint32_t count, std::byte* dst,
                    IoCallback cb) {
  uint64_t bytes = uint64_t(count) * kSectorSize;
  EngineCounters::add(e.counters.bytes_read_ssd, bytes);
  e.ssd.read(e.ssd_offset(line_id, first),
             std::span<std::byte>(dst, bytes), std::move(cb));
}

void InvalidateClean(CacheLine& line, const SectorBits& mask) {
  line.valid &= ~(mask & ~line.dirty);
}

CacheLine* LookupOrAdmit(Request& req, const Segment& seg, Shard& shard) {
  Engine& e = req.engine;
  CacheLine* line = shard.lookup(seg.core_line);
  if (line != nullptr) {
    shard.touch(*line);
    return line;
  }
  req.all_cached = false;
  if (!e.admission->admit({.block = seg.core_line, .is_write = true})) return nullptr;
  return e.allocate_line(shard, seg.core_line);
}

std::optional<uint32_t> DirtyLineToUpdateOrDropClean(Engine& e, const Segment& seg) {
  Shard& shard = e.shard_for(seg.core_line);
  std::lock_guard lock(shard.mu);
  CacheLine* line = shard.lookup(seg.core_line);
  if (line == nullptr) return std::nullopt;
  if ((line->dirty & seg.mask()).any()) return line->id;
  // Under the exclusive core-line lock no reader sees the sectors before the core write lands.
  line->valid &= ~seg.mask();
  return std::nullopt;
}

void FinishCoreAndSsdWrite(Request& req, const Segment& seg, bool on_ssd, uint32_t line_id,
                           Status status) {
  Engine& e = req.engine;
  if (on_ssd) {
    Shard& shard = e.shard_for(seg.core_line);
    std::lock_guard lock(shard.mu);
    CacheLine& line = shard.line(line_id);
    ++line.write_gen;
    if (status.ok()) {
      line.valid |= seg.mask();
    } else {
      InvalidateClean(line, seg.mask());
    }
  }
  UnlockLine(e, seg.core_line, true);
  req.segment_done(std::move(status));
}

}  // namespace tiercache
