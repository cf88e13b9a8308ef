#include "cachelib/engine/engine.h"

#include <algorithm>
#include <bit>
#include <cassert>

#include "cachelib/common/event_loop.h"

#include "cachelib/engine/cleaner.h"
#include "cachelib/engine/policy_set.h"
#include "cachelib/engine/ssd_errors.h"
#include "cachelib/engine/trust_flusher.h"
#include "policy/admission/admission_factory.h"

namespace tiercache {
namespace {

// Atomically raises `a` to at least `v`.
void RaiseTo(std::atomic<uint64_t>& a, uint64_t v) {
  uint64_t seen = a.load(std::memory_order_acquire);
  while (seen < v && !a.compare_exchange_weak(seen, v, std::memory_order_acq_rel)) {
  }
}

}  // namespace

Engine::Engine(Device& ssd_dev, Device& core_dev, std::unique_ptr<MetadataStore> metadata,
               const CacheOptions& opts)
    : ssd(ssd_dev),
      core(core_dev),
      store(std::move(metadata)),
      options(opts),
      line_size(store->info().line_size),
      sectors_per_line(store->info().line_size / kSectorSize),
      mode(store->info().mode),
      sequential(opts.policies.apply(store->info().policies).sequential,
                 store->info().line_count * store->info().line_size),
      dirty_epochs(opts.cleaning_options.max_dirty_age / 2, opts.background_loop->clock().now()),
      policies_(opts.policies.apply(store->info().policies)) {
  sequential.set_admission_refuses(AdmissionRefusesMisses(policies_.admission));
  cleaner = std::make_unique<Cleaner>(*this);
  trust_flusher = std::make_unique<TrustFlusher>(*this, *opts.background_loop, opts.trust_interval);
  readahead = std::make_unique<StreamReadahead>(*this, opts.stream_readahead_bytes);
}

Engine::~Engine() {
  // An engine dropped without close() (crash tests) must not leave a timer pointing at it.
  if (limbo_persist_armed_.load()) options.background_loop->cancel(limbo_persist_timer_.load());
}

Status Engine::init() {
  TC_RETURN_IF_ERROR(policies_.validate());
  TC_RETURN_IF_ERROR(cleaner->init());
  const uint64_t total = std::max<uint64_t>(1, store->line_count());
  uint64_t n = std::clamp<uint64_t>(options.shards, 1, total);
  // A shard indexes at most LineIndex::kMaxSlots lines: huge caches get more shards.
  n = std::max<uint64_t>(n, (total + LineIndex::kMaxSlots - 1) / LineIndex::kMaxSlots);
  shard_lines_ = ShardLines(total, n, store->info().shard_stripe_lines);
  // Shard 0 holds the most lines (a partial round's first stripe): up to a stripe more than n
  // equal shares would.
  while (shard_lines_.count(0) > LineIndex::kMaxSlots) {
    shard_lines_ = ShardLines(total, ++n, store->info().shard_stripe_lines);
  }
  chunk_shift_ = line_size >= kShardChunkBytes ? 0 : std::countr_zero(kShardChunkBytes / line_size);
  surge_board_ = std::make_unique<SurgeBoard>(shard_lines_.shards());
  for (uint32_t i = 0; i < shard_lines_.shards(); ++i) {
    auto made = MakeShardPolicies(policies_, shard_lines_.count(i), surge_slot(i));
    if (!made.ok()) return made.status();
    shards_.push_back(std::make_unique<Shard>(shard_lines_, i, sectors_per_line,
                                              std::move(made->replacement),
                                              std::move(made->admission),
                                              options.trust_interval > Nanos(0)));
  }
  return Status::Ok();
}

void Engine::load_records() {
  // Clean records are trusted after a crash too: a record claims a clean sector only once a core
  // flush and an SSD flush covered it, and stops claiming it durably before either copy changes.
  // Single-threaded here (no request yet), but the shard's state is guarded by its lock.
  const uint32_t recovered = dirty_epochs.recovered(options.background_loop->clock().now());
  store->for_each_loaded([&](uint64_t id, const LineRecord& rec) {
    if (rec.valid.none()) return;
    Shard& shard = shard_of(uint32_t(id));
    std::lock_guard lock(shard.mu);
    shard.install(uint32_t(id), rec, recovered);
    if (rec.dirty.any()) {
      EngineCounters::add(counters.lines_dirty);
      EngineCounters::add(counters.dirty_sectors, rec.dirty.count());
    }
  });
  store->release_loaded();
  store->set_record_source(
      [this](uint64_t first, std::span<LineRecord> out) { fill_records(first, out); });
}

void Engine::fill_records(uint64_t first, std::span<LineRecord> out) {
  for (size_t i = 0; i < out.size();) {
    uint32_t id = uint32_t(first + i);
    Shard& shard = shard_of(id);
    std::lock_guard lock(shard.mu);
    for (; i < out.size() && shard.owns(uint32_t(first + i)); ++i) {
      LineRecord rec = shard.record(uint32_t(first + i));
      // A line claiming no sector (being filled, untrusted and clean, in limbo) is persisted free.
      out[i] = rec.valid.any() ? rec : LineRecord{};
    }
  }
}

bool Engine::reserve_fill(uint64_t bytes) {
  uint64_t pending = fill_backlog_bytes.load(std::memory_order_relaxed);
  do {
    // An empty backlog always takes one fill, however large the line.
    if (pending != 0 && pending + bytes > options.max_fill_backlog_bytes) {
      EngineCounters::add(counters.fill_skipped_bytes, bytes);
      return false;
    }
  } while (!fill_backlog_bytes.compare_exchange_weak(pending, pending + bytes,
                                                     std::memory_order_relaxed));
  return true;
}

bool Engine::can_reuse(Shard& shard, uint32_t id) const {
  if (shard.any_dirty(id) || shard.locks().is_locked(shard.core_line(id))) return false;
  return !shard.durable_dirty(id);
}

uint32_t Engine::allocate_line(Shard& shard, uint64_t core_line) {
  shard.release_durable(persist_completed_.load(std::memory_order_acquire));
  bool evicted = false;
  uint32_t to_limbo = Shard::kNoLine;
  uint32_t id = shard.allocate(
      core_line, [&](uint32_t l) { return can_reuse(shard, l); }, &to_limbo, &evicted);
  if (evicted) EngineCounters::add(counters.evictions);
  if (to_limbo != Shard::kNoLine) stage_limbo(shard, to_limbo);
  if (id == Shard::kNoLine && shard.limbo_lines() > 0) {
    request_persist();  // the reserve is in limbo: free it now, a miss may be waiting
  } else if (to_limbo != Shard::kNoLine) {
    persist_limbo_soon(shard);
  }
  if (id != Shard::kNoLine) {
    note_changed(id);
    trust_flusher->note_untrusted();  // a new line is untrusted until a trust round
  }
  return id;
}

std::optional<Engine::AdmittedLine> Engine::admit_line(Shard& shard, uint64_t core_line,
                                                       bool is_write) {
  const Admission admission = shard.admit(core_line, is_write);
  if (!admission) return std::nullopt;
  return place_line(shard, core_line, admission.warm);
}

Engine::AdmittedLine Engine::place_line(Shard& shard, uint64_t core_line, bool warm) {
  AdmittedLine line{.id = allocate_line(shard, core_line), .warm = warm};
  if (line.id == Shard::kNoLine) {
    if (shard.limbo_lines() > 0) line.wait_need = shard.limbo_need();
  } else if (warm) {
    shard.warm(line.id);
  }
  return line;
}

uint32_t Engine::line_after_wait(Shard& shard, uint64_t core_line, bool warm) {
  const uint32_t id = shard.lookup(core_line);
  return id != Shard::kNoLine ? id : place_line(shard, core_line, warm).id;
}

void Engine::when_persisted(uint64_t need, IoCallback then) {
  if (persisted(need)) return then(Status::Ok());
  persist(std::move(then));
}

uint32_t Engine::move_to_new_line(Shard& shard, uint32_t id) {
  shard.release_durable(persist_completed_.load(std::memory_order_acquire));
  const uint32_t moved = shard.move_to_new_line(id);
  if (moved == Shard::kNoLine) return moved;
  stage_limbo(shard, id);
  note_changed(moved);
  persist_limbo_soon(shard);
  trust_flusher->note_untrusted();
  return moved;
}

void Engine::drop_empty_line(Shard& shard, uint32_t id) {
  if (!shard.drop_empty(id)) return note_changed(id);  // its record is persisted free later
  stage_limbo(shard, id);
  persist_limbo_soon(shard);
}

void Engine::stage_limbo(Shard& shard, uint32_t id) {
  // As in set_dirty: the epoch read with the mark says which persist frees it.
  std::lock_guard lock(persist_mu_);
  store->mark_changed(id);
  shard.add_limbo(id, persist_started_ + 1);
}

uint64_t Engine::untrust(Shard& shard, uint32_t id) {
  // Every change of a line's data asks for a round: rounds never re-arm themselves (a failing
  // device would keep them going, and virtual-time tests would never go idle).
  trust_flusher->note_untrusted();
  if (shard.untrust_durable(id)) {
    shard.mark_untrusted(id);  // no longer a trust candidate
    return 0;
  }
  if (!shard.mark_untrusted(id)) return shard.untrust_need();  // untrusted, not durably yet
  std::lock_guard lock(persist_mu_);
  store->mark_changed(id);
  const uint64_t need = persist_started_ + 1;
  shard.add_untrusting(id, need);
  return need;
}

void Engine::note_changed(uint32_t id) { store->mark_changed(id); }

void Engine::note_listed() { trust_flusher->note_untrusted(); }

void Engine::request_persist() {
  if (persist_requested_.exchange(true, std::memory_order_acq_rel)) return;
  inflight.fetch_add(1, std::memory_order_relaxed);
  // Not inline: the caller holds a shard lock, and a persist round takes shard locks.
  options.background_loop->post([this] {
    persist_requested_.store(false, std::memory_order_release);
    persist([this](Status) { inflight.fetch_sub(1, std::memory_order_release); });
  });
}

void Engine::persist_limbo_soon(Shard& shard) {
  if (shard.limbo_lines() * 2 >= shard.reserve()) return request_persist();
  if (limbo_persist_armed_.exchange(true, std::memory_order_acq_rel)) return;
  inflight.fetch_add(1, std::memory_order_relaxed);  // close() waits for the timer
  EventLoop& loop = *options.background_loop;
  limbo_persist_timer_ = loop.schedule_at(loop.clock().now() + kLimboPersistDelay, [this] {
    limbo_persist_armed_.store(false, std::memory_order_release);
    request_persist();
    inflight.fetch_sub(1, std::memory_order_release);
  });
}

void Engine::set_dirty(Shard& shard, uint32_t id, const SectorBits& dirty) {
  const SectorBits old_dirty = shard.dirty(id);
  if (old_dirty == dirty) return;
  shard.set_dirty(id, dirty, dirty_epochs.current());
  if (old_dirty.none() && dirty.any()) {
    EngineCounters::add(counters.lines_dirty);
    cleaner->note_dirty();
  }
  if (old_dirty.any() && dirty.none()) EngineCounters::sub(counters.lines_dirty);
  size_t before = old_dirty.count(), after = dirty.count();
  if (after > before) EngineCounters::add(counters.dirty_sectors, after - before);
  if (before > after) EngineCounters::sub(counters.dirty_sectors, before - after);
  // Marking the page and reading the epoch together, against the start of a persist, is what
  // lets the epoch say which persist covers this change.
  std::lock_guard lock(persist_mu_);
  store->mark_changed(id);
  // Only a persist that starts after this change covers it.
  shard.dirty_record_epoch.store(persist_started_ + 1, std::memory_order_release);
  if (dirty.any()) {
    shard.set_durable_dirty(id, true);
  } else if (shard.durable_dirty(id)) {
    shard.note_clean_staged(id, persist_started_);
  }
}

PolicyOptions Engine::policies() const {
  std::lock_guard lock(policies_mu_);
  return policies_;
}

void Engine::visit_policy_counters(const CounterVisitor& visit_admission,
                                   const CounterVisitor& visit_replacement) const {
  SumCounters(shards_, [](const Shard& s, const CounterVisitor& v) {
    s.admission().visit_counters(v);
  }, visit_admission);
  SumCounters(shards_, [](const Shard& s, const CounterVisitor& v) {
    s.replacement().visit_counters(v);
  }, visit_replacement);
}

void Engine::persist(IoCallback done) {
  uint64_t epoch;
  {
    std::lock_guard lock(persist_mu_);
    epoch = ++persist_started_;
  }
  // Outside persist_mu_: a persist round takes shard locks to snapshot records, and shard locks
  // are taken before persist_mu_. A change marked after the increment carries this epoch and is
  // still in the round, which starts after this call.
  {
    // The store may complete a batched persist on another loop: come back to ours.
    EventLoop* origin = EventLoop::current();
    const uint64_t written = dirty_data_written_.load(std::memory_order_acquire);
    store->persist([this, epoch, written, origin, done = std::move(done)](Status s) mutable {
      if (!s.ok()) NoteSsdError(*this, SsdErrorKind::kPersist, s);  // counts and logs it
      if (s.ok()) {
        RaiseTo(persist_completed_, epoch);
        RaiseTo(dirty_data_flushed_, written);  // the round's flushes came after those writes
      }
      if (EventLoop::current() == origin) return done(std::move(s));
      origin->post([done = std::move(done), s = std::move(s)]() mutable { done(std::move(s)); });
    });
  }
}

void Engine::flush_all(IoCallback done) {
  EngineCounters::add(counters.flushes);
  struct Join {
    std::atomic<int> pending{2};
    Status first;
    IoCallback done;
  };
  auto join = std::make_shared<Join>();
  join->done = std::move(done);
  auto arrive = [join](Status s) {
    if (!s.ok() && join->first.ok()) join->first = std::move(s);
    if (--join->pending == 0) join->done(std::move(join->first));
  };
  core.flush(arrive);
  const uint64_t written = dirty_data_written_.load(std::memory_order_acquire);
  persist([this, arrive, written](Status s) {
    // A failing SSD (docs/io-paths.md "SSD failures"): the FLUSH promises the acknowledged
    // writes, which sit on the core and in the dirty records. If every dirty-state change is
    // already durable and no dirty data was written to the SSD since its last good flush, the
    // records that failed only concern clean copies, and the SSD keeps an older claim that is
    // still consistent (io-paths.md "Warm after a crash"): the volume stays usable. Otherwise
    // the FLUSH fails: a dirty sector's new data may be lost from the SSD.
    if (!s.ok() && dirty_state_durable() &&
        dirty_data_flushed_.load(std::memory_order_acquire) >= written) {
      s = Status::Ok();
    }
    arrive(std::move(s));
  });
}

bool Engine::dirty_state_durable(uint64_t offset, uint64_t length) {
  uint64_t need = 0;
  auto consider = [&need](const Shard& s) {
    need = std::max(need, s.dirty_record_epoch.load(std::memory_order_acquire));
  };
  const uint64_t first = offset / line_size;
  const uint64_t last = (offset + std::max<uint64_t>(length, 1) - 1) / line_size;
  if (last - first >= 4 * shards_.size()) {
    for (const auto& s : shards_) consider(*s);
  } else {
    for (uint64_t l = first; l <= last; ++l) consider(shard_for(l));
  }
  return persist_completed_.load(std::memory_order_acquire) >= need;
}

void Engine::commit_then(uint64_t offset, uint64_t length, IoCallback done) {
  if (dirty_state_durable(offset, length)) return done(Status::Ok());
  persist(std::move(done));
}

}  // namespace tiercache
