#include "cachelib/engine/io_paths.h"

#include <algorithm>
#include <cstdlib>
#include <new>

#include "cachelib/common/slot_pool.h"

#include "cachelib/engine/partial_sectors.h"
#include "cachelib/engine/ssd_errors.h"

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

void LockThenTask(Request& req, const Segment& seg, bool exclusive, EventLoop::Task then) {
  if (req.partial && exclusive) {
    then = [&req, seg, then = std::move(then)]() mutable {
      FillPartialSectorsThen(req, seg, std::move(then));
    };
  }
  LockLineThen(req.engine, req.loop, seg.core_line, exclusive, std::move(then));
}

void UntrustThenTask(Request& req, const Segment& seg, bool ssd_only, EventLoop::Task then) {
  Engine& e = req.engine;
  Shard& shard = e.shard_for(seg.core_line);
  uint64_t need = 0;
  bool moved = false;
  {
    std::lock_guard lock(shard.mu);
    if (shard.in_limbo(seg.core_line)) need = shard.limbo_need();
    uint32_t id = shard.lookup(seg.core_line);
    if (id != Shard::kNoLine) {
      const bool overwrites_clean = (shard.valid(id) & ~shard.dirty(id) & seg.mask()).any();
      // A write-back write of the whole line changes no core data: it can go to a fresh line
      // while the old one waits in limbo, instead of waiting for the untrust.
      if (overwrites_clean && ssd_only && seg.sectors == e.sectors_per_line &&
          !shard.untrust_durable(id) && !shard.any_dirty(id) && !shard.durable_dirty(id)) {
        moved = e.move_to_new_line(shard, id) != Shard::kNoLine;
      }
      if (!moved) {
        const uint64_t untrusted = e.untrust(shard, id);
        if (overwrites_clean) need = std::max(need, untrusted);
      }
    }
  }
  if (moved) return then();
  // A failed SSD cannot record the untrust; its copies stay out of the path (ssd_health.h).
  if (e.persisted(need) || e.ssd_health.failed()) return then();
  // Should the persist fail, the write still goes ahead: a wt volume must outlive its SSD.
  e.persist([then = std::move(then)](Status) mutable { then(); });
}

void UnlockLine(Engine& engine, uint64_t core_line, bool exclusive) {
  Shard& shard = engine.shard_for(core_line);
  std::lock_guard lock(shard.mu);
  shard.locks().unlock(core_line, exclusive);
}

IoJoin* IoJoin::MakeWith(IoCallback done) {
  auto* join = new (SlotPool::Allocate(sizeof(IoJoin))) IoJoin;
  join->done_ = std::move(done);
  return join;
}

IoCallback IoJoin::add() {
  ++pending_;
  return [this](Status s) { arrive(std::move(s)); };
}

void IoJoin::seal() { arrive(Status::Ok()); }

void IoJoin::arrive(Status s) {
  if (!s.ok() && first_.ok()) first_ = std::move(s);
  if (--pending_ > 0) return;
  IoCallback done = std::move(done_);
  Status first = std::move(first_);
  this->~IoJoin();
  SlotPool::Release(this, sizeof(IoJoin));
  done(std::move(first));
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

void InvalidateClean(Engine& e, Shard& shard, uint32_t id, const SectorBits& mask) {
  shard.set_valid(id, shard.valid(id) & ~(mask & ~shard.dirty(id)));
  e.note_changed(id);
}

LineChoice LookupOrAdmit(Request& req, const Segment& seg, Shard& shard) {
  Engine& e = req.engine;
  uint32_t id = shard.lookup(seg.core_line);
  if (id != Shard::kNoLine) {
    shard.touch(id, true);
    EngineCounters::add(e.counters.write_hit_bytes, seg.bytes());
    return {.id = id};
  }
  EngineCounters::add(e.counters.write_miss_bytes, seg.bytes());
  req.all_cached = false;
  const std::optional<Engine::AdmittedLine> line = e.admit_line(shard, seg.core_line, true);
  if (!line) return {.refused = true};
  return {.id = line->id, .warm = line->warm, .wait_need = line->wait_need};
}

std::optional<uint32_t> DirtyLineToUpdateOrDropClean(Engine& e, const Segment& seg) {
  Shard& shard = e.shard_for(seg.core_line);
  std::lock_guard lock(shard.mu);
  const uint32_t id = shard.lookup(seg.core_line);
  if (id == Shard::kNoLine) return std::nullopt;
  if ((shard.dirty(id) & seg.mask()).any()) return id;
  // Under the exclusive core-line lock no reader sees the sectors before the core write lands.
  shard.set_valid(id, shard.valid(id) & ~seg.mask());
  e.note_changed(id);
  return std::nullopt;
}

namespace {

// One line of zeros (the largest line size), for zeroing sectors on the SSD.
const std::byte* ZeroLine() {
  static const std::byte* zeros = [] {
    auto* p = static_cast<std::byte*>(std::aligned_alloc(kSectorSize, kMaxSectorsPerLine * kSectorSize));
    std::fill(p, p + kMaxSectorsPerLine * kSectorSize, std::byte{0});
    return p;
  }();
  return zeros;
}

// The two writes of WriteCoreAndSsd, joined in a pool slot until both completed; their callbacks
// hold only its address (inline in std::function).
struct CoreAndSsdWrite {
  Request& req;
  Segment seg;
  bool on_ssd;
  uint32_t line_id;
  uint32_t pending;
  bool dirty_data = false;
  Status core, ssd;

  void arrive();
};

void FinishCoreAndSsdWrite(Request& req, const Segment& seg, bool on_ssd, uint32_t line_id,
                           Status core_status, const Status& ssd_status) {
  Engine& e = req.engine;
  if (on_ssd && core_status.ok() && !ssd_status.ok()) {
    return DropSsdCopyAfterCoreWrite(e, seg, line_id, [&req, seg](Status s) {
      UnlockLine(req.engine, seg.core_line, true);
      req.segment_done(std::move(s));
    });
  }
  if (on_ssd) {
    Shard& shard = e.shard_for(seg.core_line);
    std::lock_guard lock(shard.mu);
    shard.set_clean_pending(line_id, false);
    if (core_status.ok()) {
      shard.set_valid(line_id, shard.valid(line_id) | seg.mask());
      e.untrust(shard, line_id);  // new clean data: trusted after the next trust round
      e.note_changed(line_id);
    } else {
      InvalidateClean(e, shard, line_id, seg.mask());
    }
  }
  UnlockLine(e, seg.core_line, true);
  req.segment_done(std::move(core_status));
}

void CoreAndSsdWrite::arrive() {
  if (--pending > 0) return;
  Request& r = req;
  const Segment s = seg;
  const bool both = on_ssd;
  const uint32_t id = line_id;
  Status core_status = std::move(core), ssd_status = std::move(ssd);
  this->~CoreAndSsdWrite();
  SlotPool::Release(this, sizeof(CoreAndSsdWrite));
  FinishCoreAndSsdWrite(r, s, both, id, std::move(core_status), ssd_status);
}

}  // namespace

void WriteCoreAndSsd(Request& req, const Segment& seg, bool on_ssd, uint32_t line_id,
                     bool dirty_data, const std::byte* src) {
  Engine& e = req.engine;
  // One pool slot joins both writes; completions never run inline, so both are issued first.
  auto* both = new (SlotPool::Allocate(sizeof(CoreAndSsdWrite))) CoreAndSsdWrite{
      .req = req, .seg = seg, .on_ssd = on_ssd, .line_id = line_id, .pending = on_ssd ? 2u : 1u,
      .dirty_data = on_ssd && dirty_data, .core = {}, .ssd = {}};
  auto core_done = [both](Status s) {
    both->core = std::move(s);
    both->arrive();
  };
  EngineCounters::add(e.counters.bytes_written_core, seg.bytes());
  if (src != nullptr) {
    CoreWrite(req, seg.core_offset(e.line_size), std::span<const std::byte>(src, seg.bytes()),
              core_done);
  } else {
    e.core.write_zeroes(seg.core_offset(e.line_size), seg.bytes(), {}, core_done);
  }
  if (!on_ssd) return;
  SsdWriteSectors(e, line_id, seg.first_sector, seg.sectors, src != nullptr ? src : ZeroLine(),
                  [&e, both](Status s) {
                    if (!s.ok()) NoteSsdError(e, SsdErrorKind::kWrite, s);
                    if (s.ok() && both->dirty_data) e.note_dirty_data_written();
                    both->ssd = std::move(s);
                    both->arrive();
                  });
}

}  // namespace tiercache
