#include "cachelib/engine/engine.h"

#include <cassert>

#include "cachelib/common/event_loop.h"

#include "cachelib/engine/cleaner.h"

namespace tiercache {

Engine::Engine(Device& ssd_dev, Device& core_dev, std::unique_ptr<MetadataStore> metadata,
               const CacheOptions& opts)
    : ssd(ssd_dev),
      core(core_dev),
      store(std::move(metadata)),
      options(opts),
      line_size(store->info().line_size),
      sectors_per_line(store->info().line_size / kSectorSize),
      mode(store->info().mode),
      admission(std::make_unique<AlwaysAdmit>()) {
  uint32_t n = std::max<uint32_t>(1, options.shards);
  if (n > store->line_count()) n = uint32_t(std::max<uint64_t>(1, store->line_count()));
  for (uint32_t i = 0; i < n; ++i) {
    shards_.push_back(std::make_unique<Shard>(i, n, store->line_count()));
  }
  cleaner = std::make_unique<Cleaner>(*this);
}

Engine::~Engine() = default;

void Engine::load_records() {
  const bool trust_clean = store->info().was_clean_shutdown;
  for (auto& shard : shards_) {
    std::lock_guard lock(shard->mu);
    for (CacheLine& line : shard->lines()) {
      LineRecord rec = store->loaded_record(line.id);
      if (!rec.in_use()) continue;
      // After a crash only dirty sectors are trusted: a clean copy may predate an unflushed write.
      if (!trust_clean) rec.valid = rec.dirty;
      if (rec.valid.none()) continue;
      shard->install(line.id, rec);
      if (rec.dirty.any()) {
        EngineCounters::add(counters.lines_dirty);
        EngineCounters::add(counters.dirty_sectors, rec.dirty.count());
      }
    }
    shard->finish_load();
  }
}

bool Engine::can_reuse(Shard& shard, const CacheLine& line) const {
  if (line.dirty.any() || shard.locks().is_locked(line.core_line)) return false;
  if (!line.durable_dirty) return true;
  return line.clean_staged_epoch < persist_completed_.load(std::memory_order_acquire);
}

CacheLine* Engine::allocate_line(Shard& shard, uint64_t core_line) {
  bool evicted = false;
  CacheLine* line = shard.allocate(
      core_line, [&](const CacheLine& l) { return can_reuse(shard, l); }, &evicted);
  if (evicted) EngineCounters::add(counters.evictions);
  return line;
}

void Engine::dirty_bits_changed(Shard& shard, CacheLine& line, const SectorBits& old_dirty) {
  shard.dirty_changed(line);
  if (old_dirty.none() && line.dirty.any()) {
    EngineCounters::add(counters.lines_dirty);
    cleaner->note_dirty();
  }
  if (old_dirty.any() && line.dirty.none()) EngineCounters::sub(counters.lines_dirty);
  size_t before = old_dirty.count(), after = line.dirty.count();
  if (after > before) EngineCounters::add(counters.dirty_sectors, after - before);
  if (before > after) EngineCounters::sub(counters.dirty_sectors, before - after);
  stage_locked(line);
}

void Engine::stage_locked(CacheLine& line) {
  std::lock_guard lock(persist_mu_);
  if (line.dirty.any()) {
    line.durable_dirty = true;
  } else {
    line.clean_staged_epoch = persist_started_;
  }
  store->set_record(line.id, line.record());
}

void Engine::persist(IoCallback done) {
  uint64_t epoch;
  {
    std::lock_guard lock(persist_mu_);
    epoch = ++persist_started_;
    // The store may complete a batched persist on another loop: come back to ours.
    EventLoop* origin = EventLoop::current();
    store->persist([this, epoch, origin, done = std::move(done)](Status s) mutable {
      if (s.ok()) {
        uint64_t seen = persist_completed_.load(std::memory_order_acquire);
        while (seen < epoch &&
               !persist_completed_.compare_exchange_weak(seen, epoch, std::memory_order_acq_rel)) {
        }
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
  persist(arrive);
}

void Engine::maybe_kick_cleaner() {
  uint64_t dirty = counters.lines_dirty.load(std::memory_order_relaxed);
  if (double(dirty) > options.dirty_high_watermark * double(total_lines())) cleaner->kick();
}

}  // namespace tiercache
