#include "cachelib/engine/cleaner.h"

#include <algorithm>
#include <cstdlib>

#include "cachelib/common/logger.h"
#include "cachelib/engine/engine.h"
#include "cachelib/engine/io_paths.h"
#include "cachelib/engine/writeback_run.h"
#include "policy/cleaning/cleaning_factory.h"
#include "policy/cleaning/flush_estimate.h"

namespace tiercache {

struct Cleaner::Batch {
  struct Entry {
    uint64_t core_line = 0;
    uint32_t line_id = 0;
    uint32_t group = 0;  // index in groups
    SectorBits dirty;
    bool ready = false;   // locked, waiting to be copied with its group's other ready lines
    bool copied = false;  // every dirty sector reached the core
  };
  // Adjacent lines, one core write's worth: locked and copied together, and only once fewer
  // than writes_in_flight groups are being copied.
  struct Group {
    size_t begin = 0, end = 0;  // entries
    uint32_t pending = 0;       // entries not yet arrived
    bool collecting = false;    // start_group is still locking the lines
    // The persist the ready lines wait for (their blocks' old lines in limbo): one per group.
    uint64_t need = 0;
  };
  std::vector<Entry> entries;
  std::vector<Group> groups;
  size_t next_group = 0;
  uint32_t groups_in_flight = 0;
  bool starting = false;  // start_groups is running (arrive may call it again)
  uint32_t pending = 0;   // entries not yet arrived
  CleaningOrder order = CleaningOrder::kLba;
  // An idle batch: no group starts once foreground_ops moved past this (a client came back).
  bool yield_to_clients = false;
  uint64_t foreground_ops = 0;
  Status status;
  Nanos started{0};
};

Nanos Cleaner::RetryDelay(Nanos idle_after, uint64_t failures) {
  const Nanos cap = std::max(idle_after, kMaxRetryDelay);
  Nanos delay = idle_after;
  for (uint64_t n = 1; n < failures && delay < cap; ++n) delay *= 2;
  return std::min(delay, cap);
}

Cleaner::Cleaner(Engine& engine) : engine_(engine), loop_(engine.options.background_loop) {}

Cleaner::~Cleaner() {
  // A cache dropped without close() (tests of crashes) must not leave a timer pointing at it.
  if (timer_armed_) loop_->cancel(timer_id_);
}

Status Cleaner::init() {
  auto policy = MakeCleaningPolicy(engine_.options.cleaning, engine_.options.cleaning_options);
  if (!policy.ok()) return policy.status();
  policy_ = std::move(policy).value();
  options_ = engine_.options.cleaning_options;
  last_foreground_ = loop_->clock().now();
  // Dirty lines loaded at open count from the open, as DirtyEpochs counts them.
  oldest_dirty_since_ns_ = last_foreground_.count();
  return Status::Ok();
}

void Cleaner::set_policy(const std::string& name, const CleaningOptions& options,
                         IoCallback done) {
  auto made = MakeCleaningPolicy(name, options);
  if (!made.ok()) return done(made.status());
  std::shared_ptr<CleaningPolicy> policy(std::move(made).value().release());
  loop_->post([this, policy, options, done = std::move(done)]() mutable {
    if (stopping_) return done(Status::Busy("cache is closing"));
    {
      std::lock_guard lock(report_mu_);
      policy_ = std::move(policy);
      options_ = options;
    }
    engine_.dirty_epochs.set_length(options.max_dirty_age / 2);
    wake_at_ = 1;
    done(Status::Ok());
    if (!running_) decide();  // a running batch asks the new policy when it ends
  });
}

void Cleaner::visit_counters(const CounterVisitor& visit) const {
  std::lock_guard lock(report_mu_);
  policy_->visit_counters(visit);
}

void Cleaner::note_dirty() {
  if (engine_.counters.lines_dirty.load(std::memory_order_relaxed) < wake_at_.load()) return;
  post_decide();
}

void Cleaner::kick() { post_decide(); }

void Cleaner::post_decide() {
  if (decide_posted_.exchange(true)) return;
  loop_->post([this] { decide(); });
}

void Cleaner::clean_all(std::function<void(uint64_t)> progress, IoCallback done) {
  loop_->post([this, progress = std::move(progress), done = std::move(done)]() mutable {
    if (stopping_) return done(Status::Busy("cache is closing"));
    drain_waiters_.emplace_back(std::move(progress), std::move(done));
    decide();
  });
}

void Cleaner::stop(IoCallback done) {
  loop_->post([this, done = std::move(done)]() mutable {
    stopping_ = true;
    if (timer_armed_) loop_->cancel(timer_id_);
    timer_armed_ = false;
    wake_at_ = ~uint64_t{0};
    for (auto& w : drain_waiters_) w.second(Status::Busy("cache is closing"));
    drain_waiters_.clear();
    if (!running_) return done(Status::Ok());
    stop_done_ = std::move(done);
  });
}

CleanerStatus Cleaner::status() const {
  CleanerStatus s;
  {
    std::lock_guard lock(report_mu_);
    s.policy = policy_->name();
    s.options = options_;
    s.last_error = last_error_;
  }
  s.clean_rate_bytes_per_s = rate_bytes_per_s_.load();
  uint64_t dirty_bytes = engine_.counters.dirty_sectors.load() * kSectorSize;
  if (dirty_bytes != 0) {
    s.oldest_dirty_age_ns =
        std::max<int64_t>(0, loop_->clock().now().count() - oldest_dirty_since_ns_.load());
  }
  if (dirty_bytes == 0) {
    s.flush_eta_ns = 0;
  } else if (s.clean_rate_bytes_per_s > 0 && s.last_error.empty()) {
    Nanos eta = EstimateFlushTime(dirty_bytes, s.clean_rate_bytes_per_s);
    s.flush_eta_ns = eta == Nanos::max() ? -1 : eta.count();
  }
  s.last_reason = CleaningReasonName(static_cast<CleaningReason>(last_reason_.load()));
  return s;
}

CleaningInputs Cleaner::inputs(Nanos now) {
  // Foreground activity is seen as a change of the request count between two decisions.
  uint64_t ops = engine_.foreground_ops.load(std::memory_order_relaxed);
  if (ops != last_ops_seen_) {
    last_ops_seen_ = ops;
    last_foreground_ = now;
  }
  std::array<uint64_t, 4> per_epoch{};
  for (auto& shard : engine_.shards()) {
    std::lock_guard lock(shard->mu);
    for (int i = 0; i < 4; ++i) per_epoch[i] += shard->dirty_per_epoch()[i];
  }
  engine_.dirty_epochs.advance(now, per_epoch);
  CleaningInputs in;
  in.now = now;
  in.dirty_blocks = engine_.counters.lines_dirty.load();
  in.total_blocks = engine_.total_lines();
  in.oldest_dirty_age = engine_.dirty_epochs.oldest_age(now, per_epoch);
  in.since_foreground = now - last_foreground_;
  in.drain_requested = !drain_waiters_.empty();
  in.last_batch_end = last_batch_end_;
  in.last_batch_duration = last_batch_duration_;
  in.last_batch_blocks = last_batch_blocks_;
  in.last_batch_bytes = last_batch_bytes_;
  oldest_dirty_since_ns_ = (now - in.oldest_dirty_age).count();
  return in;
}

void Cleaner::decide() {
  decide_posted_ = false;
  if (stopping_ || running_) return;
  if (timer_armed_) loop_->cancel(timer_id_);
  timer_armed_ = false;
  const Nanos now = loop_->clock().now();
  CleaningInputs in = inputs(now);
  CleaningPlan plan = policy_->plan(in);
  last_reason_ = static_cast<int>(plan.reason);
  if (plan.clean_now) return run_batch(plan);
  wait(plan, in.dirty_blocks);
}

void Cleaner::wait(const CleaningPlan& plan, uint64_t dirty) {
  if (dirty == 0) finish_drains();
  // Ask again when the dirty count reaches what the policy waits for (at least one more line).
  wake_at_ = std::max<uint64_t>(dirty + 1, plan.wake_at_dirty_blocks);
  if (plan.recheck_after == kNeverRecheck || dirty == 0) return;
  timer_armed_ = true;
  timer_id_ = loop_->schedule_after(std::max(plan.recheck_after, Nanos(1)), [this] {
    timer_armed_ = false;
    decide();
  });
}

void Cleaner::finish_drains() {
  for (auto& w : drain_waiters_) {
    if (w.first) w.first(0);
    w.second(Status::Ok());
  }
  drain_waiters_.clear();
}

std::vector<uint64_t> Cleaner::pick_lines(uint32_t count, CleaningOrder order) {
  if (order == CleaningOrder::kOldestFirst) {
    // The oldest epoch's lines, sorted: still LBA order within them.
    std::array<uint64_t, 4> per_epoch{};
    for (auto& shard : engine_.shards()) {
      std::lock_guard lock(shard->mu);
      for (int i = 0; i < 4; ++i) per_epoch[i] += shard->dirty_per_epoch()[i];
    }
    int epoch = engine_.dirty_epochs.oldest_epoch(per_epoch);
    std::vector<uint64_t> picked;
    const size_t per_shard = std::max<size_t>(1, count / engine_.shards().size() + 1);
    for (auto& shard : engine_.shards()) {
      std::lock_guard lock(shard->mu);
      shard->collect_dirty(picked, per_shard, epoch);
    }
    std::sort(picked.begin(), picked.end());
    if (picked.size() > count) picked.resize(count);
    plan_pos_ = plan_.size();  // the LBA window is stale now
    return picked;
  }
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

size_t Cleaner::RunsPrefix(const std::vector<uint64_t>& sorted_lines, uint32_t max_runs) {
  uint32_t runs = 0;
  for (size_t i = 0; i < sorted_lines.size(); ++i) {
    if (i == 0 || sorted_lines[i] != sorted_lines[i - 1] + 1) {
      if (runs == max_runs) return i;
      ++runs;
    }
  }
  return sorted_lines.size();
}

void Cleaner::run_batch(const CleaningPlan& plan) {
  std::vector<uint64_t> lines = pick_lines(std::max<uint32_t>(1, plan.max_blocks), plan.order);
  // Scattered lines: at most max_batch_runs seeks per batch; the rest stay in the window for the
  // next one.
  const size_t keep = RunsPrefix(lines, options_.max_batch_runs);
  if (keep < lines.size()) {
    if (plan.order == CleaningOrder::kLba) plan_pos_ -= lines.size() - keep;
    lines.resize(keep);
  }
  if (lines.empty()) {
    // The plan window ran dry: the next decision refills it (or finds nothing dirty).
    if (engine_.counters.lines_dirty.load() == 0) return wait(CleaningPlan{}, 0);
    return post_decide();
  }
  running_ = true;
  auto batch = std::make_shared<Batch>();
  batch->started = loop_->clock().now();
  batch->entries.resize(lines.size());
  batch->pending = uint32_t(lines.size());
  batch->order = plan.order;
  batch->yield_to_clients = plan.yield_to_clients;
  batch->foreground_ops = engine_.foreground_ops.load(std::memory_order_relaxed);
  const uint64_t group_lines = std::max<uint64_t>(1, options_.max_write_bytes / engine_.line_size);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i == 0 || lines[i] != lines[i - 1] + 1 ||
        i - batch->groups.back().begin == group_lines) {
      batch->groups.push_back(Batch::Group{.begin = i});
    }
    Batch::Group& group = batch->groups.back();
    group.end = i + 1;
    ++group.pending;
    batch->entries[i].core_line = lines[i];
    batch->entries[i].group = uint32_t(batch->groups.size() - 1);
  }
  start_groups(batch);
}

void Cleaner::start_groups(const std::shared_ptr<Batch>& batch) {
  if (batch->starting) return;  // an inline arrive() within start_group: the loop below goes on
  batch->starting = true;
  while (batch->groups_in_flight < options_.writes_in_flight &&
         batch->next_group < batch->groups.size()) {
    if (batch->yield_to_clients &&
        engine_.foreground_ops.load(std::memory_order_relaxed) != batch->foreground_ops) {
      skip_rest(batch);
      break;
    }
    ++batch->groups_in_flight;
    start_group(batch, batch->next_group++);
  }
  batch->starting = false;
}

void Cleaner::skip_rest(const std::shared_ptr<Batch>& batch) {
  const size_t first = batch->groups[batch->next_group].begin;
  const size_t skipped = batch->entries.size() - first;
  batch->next_group = batch->groups.size();
  // The window is untouched while a batch runs: its next batch starts at the first skipped line.
  if (batch->order == CleaningOrder::kLba) plan_pos_ -= skipped;
  batch->pending -= uint32_t(skipped);
  if (batch->pending == 0) finish_batch(batch, batch->status);
}

void Cleaner::start_group(const std::shared_ptr<Batch>& batch, size_t g) {
  Batch::Group& group = batch->groups[g];
  // Lines locked at once wait here and are copied together, so that adjacent ones coalesce,
  // after one persist if some block's old line waits in limbo for its free record; a line whose
  // lock must be waited for is copied on its own once it may be (after its own limbo wait).
  group.collecting = true;
  for (size_t i = group.begin; i < group.end; ++i) clean_line(batch, i);
  group.collecting = false;
  std::vector<uint64_t> ready;
  for (size_t i = group.begin; i < group.end; ++i) {
    if (batch->entries[i].ready) ready.push_back(i);
  }
  if (ready.empty()) return;
  if (engine_.persisted(group.need)) return copy_lines(batch, ready);
  engine_.persist([this, batch, ready = std::move(ready)](Status s) {
    if (s.ok()) return copy_lines(batch, ready);
    for (uint64_t index : ready) {
      UnlockLine(engine_, batch->entries[index].core_line, false);
      arrive(batch, index, s);
    }
  });
}

void Cleaner::arrive(const std::shared_ptr<Batch>& batch, uint64_t index, Status s) {
  if (!s.ok() && batch->status.ok()) batch->status = std::move(s);
  if (--batch->groups[batch->entries[index].group].pending == 0) {
    --batch->groups_in_flight;
    start_groups(batch);
  }
  if (--batch->pending == 0) finish_batch(batch, batch->status);
}

void Cleaner::clean_line(std::shared_ptr<Batch> batch, uint64_t index) {
  LockLineThen(engine_, loop_, batch->entries[index].core_line, false, [this, batch, index] {
    Engine& e = engine_;
    Batch::Entry& entry = batch->entries[index];
    Batch::Group& group = batch->groups[entry.group];
    Shard& shard = e.shard_for(entry.core_line);
    uint64_t need = 0;
    {
      std::lock_guard lock(shard.mu);
      const uint32_t id = shard.lookup(entry.core_line);
      if (id != Shard::kNoLine && shard.any_dirty(id)) {
        entry.line_id = id;
        entry.dirty = shard.dirty(id);
        shard.set_clean_pending(id, true);
        // The block's old line in limbo may still be trusted by its durable record: the core
        // copy must wait for its free record, or a crash would serve that old copy as clean.
        if (shard.in_limbo(entry.core_line)) need = shard.limbo_need();
      }
    }
    if (entry.dirty.none()) {
      UnlockLine(e, entry.core_line, false);
      return arrive(batch, index, Status::Ok());
    }
    if (group.collecting) {  // the group waits for one persist covering all its lines
      entry.ready = true;
      group.need = std::max(group.need, need);
      return;
    }
    if (!e.persisted(need)) {
      return e.persist([this, batch, index](Status s) {
        if (s.ok()) return copy_lines(batch, {index});
        UnlockLine(engine_, batch->entries[index].core_line, false);
        arrive(batch, index, std::move(s));
      });
    }
    copy_lines(batch, {index});
  });
}

void Cleaner::copy_lines(const std::shared_ptr<Batch>& batch,
                         const std::vector<uint64_t>& indices) {
  Engine& e = engine_;
  const uint64_t max_bytes = options_.max_write_bytes;
  std::vector<std::shared_ptr<WritebackRun>> runs;
  for (uint64_t index : indices) {
    const Batch::Entry& entry = batch->entries[index];
    // The line stays locked until every one of its pieces reached the core (or failed).
    auto join = IoJoin::Make([this, batch, index](Status s) {
      batch->entries[index].copied = s.ok();
      UnlockLine(engine_, batch->entries[index].core_line, false);
      arrive(batch, index, std::move(s));
    });
    ForEachRun(entry.dirty, 0, e.sectors_per_line, [&](uint32_t first, uint32_t n, bool dirty) {
      if (!dirty) return;
      const uint64_t offset = entry.core_line * e.line_size + uint64_t(first) * kSectorSize;
      if (runs.empty() || !runs.back()->continues(offset, n, max_bytes)) {
        runs.push_back(std::make_shared<WritebackRun>(e, offset));
      }
      runs.back()->add(entry.line_id, first, n, join->add());
    });
    join->seal();
  }
  for (auto& run : runs) WritebackRun::Start(std::move(run));
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
    engine_.persist([this, batch, status](Status p) mutable {
      after_batch(*batch, status.ok() ? std::move(p) : std::move(status));
    });
  });
}

void Cleaner::after_batch(const Batch& batch, Status status) {
  running_ = false;
  if (stopping_) {
    if (stop_done_) std::exchange(stop_done_, nullptr)(Status::Ok());
    return;
  }
  const Nanos now = loop_->clock().now();
  last_batch_end_ = now;
  last_batch_duration_ = now - batch.started;
  last_batch_blocks_ = 0;
  for (const Batch::Entry& e : batch.entries) last_batch_blocks_ += e.copied ? e.dirty.count() : 0;
  last_batch_bytes_ = last_batch_blocks_ * kSectorSize;
  if (last_batch_duration_.count() > 0 && last_batch_bytes_ > 0) {
    rate_bytes_per_s_ = uint64_t(double(last_batch_bytes_) * 1e9 /
                                 double(last_batch_duration_.count()));
  }
  note_batch_result(status);
  if (!status.ok()) {
    // Do not spin on a failing device: report, and try again after a pause that doubles with
    // each failure (a full core would otherwise have a batch read from the SSD every second).
    for (auto& w : drain_waiters_) w.second(status);
    drain_waiters_.clear();
    wake_at_ = ~uint64_t{0};  // new dirty lines do not cut the pause short; flush and kick do
    timer_armed_ = true;
    timer_id_ = loop_->schedule_after(RetryDelay(options_.idle_after, failed_batches_), [this] {
      timer_armed_ = false;
      decide();
    });
    return;
  }
  uint64_t remaining = engine_.counters.lines_dirty.load();
  for (auto& w : drain_waiters_) {
    if (w.first) w.first(remaining);
  }
  decide();
}

void Cleaner::note_batch_result(const Status& status) {
  if (status.ok()) {
    if (failed_batches_ == 0) return;
    LogInfo("cleaning_recovered", {{"core", engine_.core.name()},
                                   {"failed_batches", std::to_string(failed_batches_)}});
    failed_batches_ = 0;
    std::lock_guard lock(report_mu_);
    last_error_.clear();
    return;
  }
  // Once per streak: a full core fails every retry, and each would say the same.
  if (failed_batches_++ == 0) {
    LogError("cleaning_error", {{"core", engine_.core.name()}, {"error", status.ToString()}});
  }
  std::lock_guard lock(report_mu_);
  last_error_ = status.ToString();
}

}  // namespace tiercache
