#include "cachelib/engine/cleaner.h"

#include <algorithm>
#include <cstdlib>

#include "cachelib/engine/engine.h"
#include "cachelib/engine/io_paths.h"

namespace tiercache {

struct Cleaner::Batch {
  struct Entry {
    uint64_t core_line = 0;
    uint32_t line_id = 0;
    SectorBits dirty;
    bool copied = false;
  };
  std::vector<Entry> entries;
  uint32_t pending = 0;
  Status status;
};

Cleaner::Cleaner(Engine& engine) : engine_(engine), loop_(engine.options.background_loop) {}

Cleaner::~Cleaner() {
  // A cache dropped without close() (tests of crashes) must not leave a timer pointing at it.
  if (timer_armed_ && timer_id_ != 0) loop_->cancel(timer_id_);
}

bool Cleaner::above_watermark() const {
  double dirty = double(engine_.counters.lines_dirty.load(std::memory_order_relaxed));
  double limit = engine_.options.dirty_high_watermark;
  if (!urgent_) return dirty > limit * double(engine_.total_lines());
  // Once urgent, keep going down to 10 points below the watermark (hysteresis).
  return dirty > std::max(0.0, limit - 0.1) * double(engine_.total_lines());
}

void Cleaner::note_dirty() {
  if (!engine_.options.idle_cleaning || timer_armed_.exchange(true)) return;
  loop_->post([this] { arm_idle_timer(); });
}

void Cleaner::arm_idle_timer() {
  if (stopping_ || !engine_.options.idle_cleaning) return;
  timer_armed_ = true;
  last_ops_seen_ = engine_.foreground_ops.load(std::memory_order_relaxed);
  timer_id_ = loop_->schedule_after(engine_.options.idle_clean_delay, [this] { on_idle_timer(); });
}

void Cleaner::on_idle_timer() {
  timer_armed_ = false;
  if (stopping_ || engine_.counters.lines_dirty.load() == 0) return;
  uint64_t ops = engine_.foreground_ops.load(std::memory_order_relaxed);
  if (ops == last_ops_seen_) {
    idle_mode_ = true;
    maybe_run();
  }
  if (!running_) arm_idle_timer();
}

void Cleaner::kick() {
  loop_->post([this] {
    urgent_ = true;
    maybe_run();
  });
}

void Cleaner::clean_all(std::function<void(uint64_t)> progress, IoCallback done) {
  loop_->post([this, progress = std::move(progress), done = std::move(done)]() mutable {
    if (stopping_) return done(Status::Busy("cache is closing"));
    if (engine_.counters.lines_dirty.load() == 0 && !running_) {
      if (progress) progress(0);
      return done(Status::Ok());
    }
    drain_waiters_.emplace_back(std::move(progress), std::move(done));
    maybe_run();
  });
}

void Cleaner::stop(IoCallback done) {
  loop_->post([this, done = std::move(done)]() mutable {
    stopping_ = true;
    if (timer_armed_) loop_->cancel(timer_id_);
    timer_armed_ = true;  // never re-armed
    for (auto& w : drain_waiters_) w.second(Status::Busy("cache is closing"));
    drain_waiters_.clear();
    if (!running_) return done(Status::Ok());
    stop_done_ = std::move(done);
  });
}

void Cleaner::maybe_run() {
  if (running_ || stopping_) return;
  if (drain_waiters_.empty() && !idle_mode_ && !(urgent_ && above_watermark())) {
    urgent_ = false;
    return;
  }
  run_batch();
}

std::vector<uint64_t> Cleaner::pick_lines(uint32_t count) {
  if (plan_pos_ == plan_.size()) {
    // A window of dirty lines from every shard, sorted: batches go to the core in LBA order.
    plan_.clear();
    plan_pos_ = 0;
    const size_t per_shard = std::max<size_t>(1, kPlanLines / engine_.shards().size());
    for (auto& shard : engine_.shards()) {
      std::lock_guard lock(shard->mu);
      shard->collect_dirty(plan_, per_shard);
    }
    std::sort(plan_.begin(), plan_.end());
  }
  size_t n = std::min<size_t>(count, plan_.size() - plan_pos_);
  std::vector<uint64_t> picked(plan_.begin() + plan_pos_, plan_.begin() + plan_pos_ + n);
  plan_pos_ += n;
  return picked;
}

void Cleaner::run_batch() {
  std::vector<uint64_t> lines = pick_lines(std::max<uint32_t>(1, engine_.options.cleaner_parallelism));
  if (lines.empty()) {
    idle_mode_ = false;
    urgent_ = false;
    for (auto& w : drain_waiters_) {
      if (w.first) w.first(0);
      w.second(Status::Ok());
    }
    drain_waiters_.clear();
    return;
  }
  running_ = true;
  auto batch = std::make_shared<Batch>();
  batch->entries.resize(lines.size());
  batch->pending = uint32_t(lines.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    batch->entries[i].core_line = lines[i];
    clean_line(batch, i);
  }
}

void Cleaner::clean_line(std::shared_ptr<Batch> batch, uint64_t index) {
  LockLineThen(engine_, loop_, batch->entries[index].core_line, false, [this, batch, index] {
    Engine& e = engine_;
    Batch::Entry& entry = batch->entries[index];
    Shard& shard = e.shard_for(entry.core_line);
    auto arrive = [this, batch](Status s) {
      if (!s.ok() && batch->status.ok()) batch->status = std::move(s);
      if (--batch->pending == 0) finish_batch(batch, batch->status);
    };
    {
      std::lock_guard lock(shard.mu);
      const uint32_t id = shard.lookup(entry.core_line);
      if (id != Shard::kNoLine && shard.any_dirty(id)) {
        entry.line_id = id;
        entry.dirty = shard.dirty(id);
        shard.set_clean_pending(id, true);
      }
    }
    if (entry.dirty.none()) {
      UnlockLine(e, entry.core_line, false);
      return arrive(Status::Ok());
    }
    std::shared_ptr<std::byte> buf(
        static_cast<std::byte*>(std::aligned_alloc(kSectorSize, e.line_size)), std::free);
    auto join = IoJoin::Make([this, batch, index, buf, arrive](Status s) {
      batch->entries[index].copied = s.ok();
      UnlockLine(engine_, batch->entries[index].core_line, false);
      arrive(std::move(s));
    });
    ForEachRun(entry.dirty, 0, e.sectors_per_line, [&](uint32_t first, uint32_t n, bool dirty) {
      if (!dirty) return;
      std::byte* dst = buf.get() + uint64_t(first) * kSectorSize;
      uint64_t core_off = entry.core_line * e.line_size + uint64_t(first) * kSectorSize;
      SsdReadSectors(e, entry.line_id, first, n, dst,
                     [&e, dst, n, core_off, cb = join->add()](Status s) {
                       if (!s.ok()) return cb(std::move(s));
                       uint64_t bytes = uint64_t(n) * kSectorSize;
                       EngineCounters::add(e.counters.cleaner_writes);
                       EngineCounters::add(e.counters.bytes_written_core, bytes);
                       e.core.write(core_off, std::span<const std::byte>(dst, bytes), {}, cb);
                     });
    });
    join->seal();
  });
}

void Cleaner::finish_batch(std::shared_ptr<Batch> batch, Status status) {
  // The dirty bits may only go once the core copies are durable.
  engine_.core.flush([this, batch, status](Status s) mutable {
    if (!s.ok() && status.ok()) status = s;
    if (s.ok()) {
      for (const Batch::Entry& entry : batch->entries) {
        if (!entry.copied) continue;
        Shard& shard = engine_.shard_for(entry.core_line);
        std::lock_guard lock(shard.mu);
        const uint32_t id = shard.lookup(entry.core_line);
        // A write since the copy (it cleared clean_pending) keeps the line dirty for next round.
        if (id != entry.line_id || !shard.clean_pending(id)) continue;
        shard.set_clean_pending(id, false);
        engine_.set_dirty(shard, id, shard.dirty(id) & ~entry.dirty);
        EngineCounters::add(engine_.counters.cleaned_lines);
      }
    }
    engine_.persist([this, status](Status p) mutable {
      after_batch(status.ok() ? std::move(p) : std::move(status));
    });
  });
}

void Cleaner::after_batch(Status status) {
  running_ = false;
  if (stopping_) {
    if (stop_done_) std::exchange(stop_done_, nullptr)(Status::Ok());
    return;
  }
  if (!status.ok()) {
    // Do not spin on a failing device: report, and let the timer or a later kick retry.
    for (auto& w : drain_waiters_) w.second(status);
    drain_waiters_.clear();
    idle_mode_ = urgent_ = false;
    if (!timer_armed_) arm_idle_timer();
    return;
  }
  uint64_t remaining = engine_.counters.lines_dirty.load();
  for (auto& w : drain_waiters_) {
    if (w.first) w.first(remaining);
  }
  if (idle_mode_ &&
      engine_.foreground_ops.load(std::memory_order_relaxed) != last_ops_seen_) {
    idle_mode_ = false;  // foreground I/O is back: yield to it
  }
  maybe_run();
  if (!running_ && remaining > 0 && !timer_armed_) arm_idle_timer();
}

}  // namespace tiercache
