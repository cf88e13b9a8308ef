#include "cachelib/engine/cache.h"

#include <array>
#include <cstring>

#include "cachelib/common/logger.h"
#include "cachelib/engine/cleaner.h"
#include "cachelib/engine/engine.h"
#include "cachelib/engine/io_paths.h"
#include "cachelib/engine/mode_table.h"
#include "cachelib/engine/partial_sectors.h"
#include "cachelib/engine/read_batch.h"
#include "cachelib/engine/request.h"
#include "cachelib/engine/trust_flusher.h"
#include "cachelib/metadata/format.h"

namespace tiercache {
namespace {

uint64_t RoundDownToSector(uint64_t bytes) { return bytes / kSectorSize * kSectorSize; }

// Polls (on the loop's clock, so virtual time works too) until the engine has nothing in flight.
void WhenIdle(Engine& e, EventLoop* loop, std::function<void()> fn) {
  // Sequentially consistent with the closing flag (Engine::set_policies counts itself in flight
  // before it reads that flag): a change either is seen here or sees the cache closing.
  if (e.inflight.load() == 0) return fn();
  loop->schedule_after(std::chrono::milliseconds(1),
                       [&e, loop, fn = std::move(fn)]() mutable { WhenIdle(e, loop, std::move(fn)); });
}

// `done`, called on the loop of the thread that calls this (background work reports on its own).
IoCallback OnCallerLoop(IoCallback done) {
  EventLoop* origin = EventLoop::current();
  return [origin, done = std::move(done)](Status s) {
    origin->post([done, s = std::move(s)] { done(s); });
  };
}

}  // namespace

Status CacheOptions::validate() const {
  if (background_loop == nullptr) return Status::InvalidArgument("background_loop is required");
  if (shards == 0) return Status::InvalidArgument("shards must be >= 1");
  if (ssd_error_window <= Nanos(0)) {
    return Status::InvalidArgument("ssd_error_window must be > 0");
  }
  if (trust_interval < Nanos(0)) return Status::InvalidArgument("trust_interval must be >= 0");
  if (max_fill_backlog_bytes < kSectorSize) {
    return Status::InvalidArgument("max_fill_backlog_bytes must be >= 4096");
  }
  TC_RETURN_IF_ERROR(cleaning_options.validate());
  TC_RETURN_IF_ERROR(store.validate());
  // Overrides are checked once merged with what the superblock recorded (Engine::init).
  return Status::Ok();
}

Cache::Cache(std::unique_ptr<Engine> engine)
    : Device("tiercache:" + engine->ssd.name(), RoundDownToSector(engine->core.size()),
             kLogicalSectorSize),
      engine_(std::move(engine)) {}

Cache::~Cache() = default;

void Cache::Open(Device& ssd, Device& core, const CoreIdentity& core_id,
                 const CacheOptions& options, OpenCallback done) {
  auto fail_later = [&done](Status s) {
    EventLoop::current()->post([done = std::move(done), s = std::move(s)] { done(s); });
  };
  if (Status s = options.validate(); !s.ok()) return fail_later(std::move(s));
  if (ssd.block_size() > kSectorSize) {
    return fail_later(Status::InvalidArgument(ssd.name() + ": SSD logical block size " +
                                              std::to_string(ssd.block_size()) +
                                              " is larger than 4096"));
  }
  // The device serves whole blocks (a file: 4 KiB); the identity has the size the file or disk
  // reports, a tail of less than a block more.
  if (core.size() != core_id.size - core_id.size % core.block_size()) {
    return fail_later(Status::InvalidArgument(
        core.name() + ": core is " + std::to_string(core.size()) + " bytes, identity says " +
        std::to_string(core_id.size)));
  }
  MetadataStore::Open(ssd, core_id, [&ssd, &core, options, done = std::move(done)](
                                        Result<std::unique_ptr<MetadataStore>> store) {
    if (!store.ok()) return done(store.status());
    auto engine = std::make_unique<Engine>(ssd, core, std::move(store).value(), options);
    if (Status s = engine->init(); !s.ok()) return done(std::move(s));
    engine->load_records();
    if (engine->counters.lines_dirty.load() > 0) engine->cleaner->note_dirty();
    done(std::unique_ptr<Cache>(new Cache(std::move(engine))));
  }, options.store);
}

CacheMode Cache::mode() const { return engine_->mode.load(std::memory_order_acquire); }

void Cache::set_mode(CacheMode mode, bool drain, IoCallback answer) {
  // In flight until answered, as Engine::set_policies: close() waits for the change, whose drain
  // it stops and whose way back to the old mode goes through the store (closed after that), or
  // the change sees the cache closing. Before, close() could finish with the change's answer
  // still queued behind it in the store, never given.
  Engine& e = *engine_;
  e.inflight.fetch_add(1);
  IoCallback done = [&e, answer = std::move(answer)](Status s) {
    answer(std::move(s));
    e.inflight.fetch_sub(1, std::memory_order_release);
  };
  if (e.closing.load()) {
    return done(Status::Busy("the cache is closing (its mode does not change)"));
  }
  CacheMode old = engine_->mode.exchange(mode, std::memory_order_acq_rel);
  engine_->store->set_mode(mode, [this, old, mode, drain, done = std::move(done)](Status s) {
    // Dirty data can be there in any mode (left by wb, or by a crash during an earlier drain).
    if (!s.ok() || !drain || mode == CacheMode::kWriteBack) return done(std::move(s));
    clean_all(nullptr, [this, old, done = std::move(done)](Status drained) mutable {
      if (drained.ok()) return done(std::move(drained));
      // The switch asked for a cache without dirty data and the drain could not give one: back
      // to the old mode, as a failed detach goes back, so the failure leaves the mode as it was.
      engine_->mode.store(old, std::memory_order_release);
      auto restored_done = [old, drained, done = std::move(done)](Status restored) mutable {
        std::string msg = "writing dirty data back failed, the mode stays " +
                          std::string(ModeName(old)) + ": " + drained.message();
        if (!restored.ok()) msg += "; restoring the mode failed: " + restored.message();
        done(drained.with_message(msg));
      };
      engine_->store->set_mode(old, std::move(restored_done));
    });
  });
}

PolicyOptions Cache::policies() const { return engine_->policies(); }

MetadataCounters Cache::metadata_counters() const { return engine_->store->counters(); }

PolicySwapReport Cache::last_policy_swap() const { return engine_->last_policy_swap(); }
void Cache::trust_round(IoCallback done) { engine_->trust_flusher->round_now(std::move(done)); }
TrustRoundReport Cache::last_trust_round() const { return engine_->last_trust_round(); }

void Cache::set_policies(const PolicyOptions& next, IoCallback done) {
  engine_->set_policies(next, std::move(done));
}

void Cache::set_cleaning(const std::string& policy, const CleaningOptions& options,
                         IoCallback done) {
  engine_->cleaner->set_policy(policy, options, OnCallerLoop(std::move(done)));
}

void Cache::clean_all(std::function<void(uint64_t)> progress, IoCallback done) {
  engine_->cleaner->clean_all(std::move(progress), OnCallerLoop(std::move(done)));
}

void Cache::close(IoCallback done, bool forget_clean) {
  EventLoop* origin = EventLoop::current();
  Engine& e = *engine_;
  e.closing.store(true);  // sequentially consistent: see WhenIdle
  e.trust_flusher->stop();
  e.cleaner->stop([&e, origin, forget_clean, done = std::move(done)](Status) mutable {
    origin->post([&e, origin, forget_clean, done = std::move(done)]() mutable {
      WhenIdle(e, origin, [&e, forget_clean, done = std::move(done)]() mutable {
        // "Clean shutdown" lets the next open trust every clean line: the core copies they match
        // must be durable first. Every change already marked its page: the store writes what is
        // left, then the flag.
        e.core.flush([&e, forget_clean, done = std::move(done)](Status s) mutable {
          if (!s.ok()) return done(std::move(s));
          // Nothing in flight and the core durable: every line's clean copies can be claimed.
          forget_clean ? e.untrust_all_idle() : e.trust_all_idle();
          e.store->close_clean(std::move(done));
        });
      });
    });
  });
}

bool Cache::busy() const { return engine_->inflight.load(std::memory_order_acquire) != 0; }

CacheCounters Cache::counters() const {
  const EngineCounters& c = engine_->counters;
  CacheCounters out;
  out.read_hits = c.read_hits.load();
  out.read_partial_hits = c.read_partial_hits.load();
  out.read_misses = c.read_misses.load();
  out.write_hits = c.write_hits.load();
  out.write_misses = c.write_misses.load();
  out.read_bypasses = c.read_bypasses.load();
  out.read_hit_bytes = c.read_hit_bytes.load();
  out.read_miss_bytes = c.read_miss_bytes.load();
  out.write_hit_bytes = c.write_hit_bytes.load();
  out.write_miss_bytes = c.write_miss_bytes.load();
  out.write_bypasses = c.write_bypasses.load();
  out.bytes_read_ssd = c.bytes_read_ssd.load();
  out.bytes_written_ssd = c.bytes_written_ssd.load();
  out.bytes_read_core = c.bytes_read_core.load();
  out.bytes_written_core = c.bytes_written_core.load();
  out.lines_total = engine_->total_lines();
  for (auto& shard : engine_->shards()) {
    std::lock_guard lock(shard->mu);
    out.lines_used += shard->used_lines();
    out.lines_untrusted += shard->untrusted_lines();
  }
  out.lines_dirty = c.lines_dirty.load();
  out.dirty_sectors = c.dirty_sectors.load();
  out.evictions = c.evictions.load();
  out.fill_skipped_bytes = c.fill_skipped_bytes.load();
  out.cleaner_writes = c.cleaner_writes.load();
  out.cleaner_write_errors = c.cleaner_write_errors.load();
  out.cleaned_lines = c.cleaned_lines.load();
  out.errors = c.errors.load();
  out.flushes = c.flushes.load();
  out.discards = c.discards.load();
  out.write_zeroes = c.write_zeroes.load();
  const SsdHealth& health = engine_->ssd_health;
  out.ssd_read_errors = health.read_errors();
  out.ssd_write_errors = health.write_errors();
  out.ssd_persist_errors = health.persist_errors();
  out.ssd_failovers = health.failovers();
  return out;
}

CacheLatency Cache::latency() const {
  const EngineCounters& c = engine_->counters;
  return {.hit = c.latency_hit.snapshot(),
          .miss = c.latency_miss.snapshot(),
          .write = c.latency_write.snapshot(),
          .flush = c.latency_flush.snapshot()};
}

CacheHealth Cache::health() const {
  const SsdHealth& h = engine_->ssd_health;
  CacheHealth out;
  const SsdHealthState state = h.state();
  out.state = SsdHealthName(state);
  out.read_errors = h.read_errors();
  out.write_errors = h.write_errors();
  out.persist_errors = h.persist_errors();
  if (state != SsdHealthState::kOk) {
    out.dirty_bytes_at_risk = engine_->counters.dirty_sectors.load() * kSectorSize;
  }
  return out;
}

void Cache::reset_health(IoCallback done) {
  Engine& e = *engine_;
  auto buf = NewSectorBuffer(kSectorSize);
  e.inflight.fetch_add(1, std::memory_order_relaxed);
  e.ssd.read(format::kSuperblockOffset[0], std::span<std::byte>(buf.get(), kSectorSize),
             [&e, buf, done = std::move(done)](Status s) {
               const std::string_view magic(reinterpret_cast<const char*>(buf.get()),
                                            format::kSuperblockMagic.size());
               if (!s.ok()) {
                 s = Status::IoError(e.ssd.name() + ": SSD check failed, reading the superblock: " +
                                     s.message());
               } else if (magic != format::kSuperblockMagic) {
                 s = Status::IoError(e.ssd.name() +
                                     ": SSD check failed: no tiercache superblock (a new SSD "
                                     "needs tiercache create)");
               } else {
                 const SsdHealthState before = e.ssd_health.state();
                 e.ssd_health.reset();
                 LogInfo("health_change", {{"ssd", e.ssd.name()},
                                           {"from", SsdHealthName(before)}, {"to", "ok"}});
               }
               done(std::move(s));
               e.inflight.fetch_sub(1, std::memory_order_release);
             });
}

PolicyReport Cache::policy_report() const {
  PolicyReport r;
  const PolicyOptions policies = engine_->policies();
  r.admission = policies.admission;
  r.replacement = policies.replacement;
  auto into = [](PolicyReport::Counters& out) {
    return [&out](std::string_view name, uint64_t v) { out.emplace_back(std::string(name), v); };
  };
  engine_->visit_policy_counters(into(r.admission_counters), into(r.replacement_counters));
  engine_->sequential.visit_counters(into(r.sequential_counters));
  engine_->cleaner->visit_counters(into(r.cleaning_counters));
  CleanerStatus cleaner = engine_->cleaner->status();
  r.cleaning = cleaner.policy;
  r.oldest_dirty_age_ns = cleaner.oldest_dirty_age_ns;
  r.flush_eta_ns = cleaner.flush_eta_ns;
  r.clean_rate_bytes_per_s = cleaner.clean_rate_bytes_per_s;
  r.cleaning_reason = cleaner.last_reason;
  r.cleaning_error = cleaner.last_error;
  r.cleaning_options = cleaner.options;
  for (auto& shard : engine_->shards()) {
    std::lock_guard lock(shard->mu);
    r.index_bytes += shard->memory_size();
  }
  return r;
}

const SuperblockInfo& Cache::info() const { return engine_->store->info(); }

void Cache::read_impl(uint64_t offset, std::span<std::byte> buf, IoCallback cb) {
  if (!SectorAligned(offset, buf.size())) {
    // Read the 4 KiB-aligned cover, hand the client its part.
    const uint64_t start = CoverStart(offset), end = CoverEnd(offset + buf.size());
    auto bounce = NewSectorBuffer(end - start);
    return read_impl(start, std::span<std::byte>(bounce.get(), end - start),
                     [bounce, buf, skip = offset - start, cb = std::move(cb)](Status s) {
                       if (s.ok()) std::memcpy(buf.data(), bounce.get() + skip, buf.size());
                       cb(std::move(s));
                     });
  }
  Request* r = NewRequest(*engine_, RequestKind::kRead, offset, buf.size(), std::move(cb));
  uint64_t stream_bytes = 0;
  r->mode = ResolveEffectiveMode(*engine_, r->mode, offset, buf.size(), false, &stream_bytes,
                                 &r->stream_bypass);
  if (r->mode != CacheMode::kPassThrough) {
    engine_->readahead->consider(offset, buf.size(), stream_bytes);
  }
  r->read_buf = buf.data();
  r->start_runs(&ReadRun);
}

void Cache::write_impl(uint64_t offset, std::span<const std::byte> buf, WriteFlags flags,
                       IoCallback cb) {
  Request* r;
  if (SectorAligned(offset, buf.size())) {
    r = NewRequest(*engine_, RequestKind::kWrite, offset, buf.size(), std::move(cb));
    r->write_buf = buf.data();
  } else {
    r = NewPartialWrite(*engine_, offset, buf, std::move(cb));
  }
  r->mode = ResolveEffectiveMode(*engine_, r->mode, r->offset, r->length, true);
  r->flags = flags;
  r->start(OpsFor(r->mode).write_segment);
}

void Cache::flush_impl(IoCallback cb) {
  Engine& e = *engine_;
  e.inflight.fetch_add(1, std::memory_order_relaxed);
  const Clock& clock = EventLoop::current()->clock();
  e.flush_all([&e, &clock, started = clock.now(), cb = std::move(cb)](Status s) {
    e.counters.latency_flush.record(clock.now() - started);
    if (!s.ok()) EngineCounters::add(e.counters.errors);  // a client request that failed
    cb(std::move(s));
    e.inflight.fetch_sub(1, std::memory_order_release);
  });
}

void Cache::discard_impl(uint64_t offset, uint64_t length, IoCallback cb) {
  EngineCounters::add(engine_->counters.discards);
  // TRIM is advisory: only the whole 4 KiB sectors inside the range are dropped.
  const uint64_t start = CoverEnd(offset), end = CoverStart(offset + length);
  if (start >= end) {
    return EventLoop::current()->post([cb = std::move(cb)] { cb(Status::Ok()); });
  }
  Request* r = NewRequest(*engine_, RequestKind::kDiscard, start, end - start, std::move(cb));
  r->start(&DiscardSegment);
}

void Cache::write_zeroes_impl(uint64_t offset, uint64_t length, WriteFlags flags, IoCallback cb) {
  if (!SectorAligned(offset, length)) return write_zeroes_unaligned(offset, length, flags, std::move(cb));
  EngineCounters::add(engine_->counters.write_zeroes);
  Request* r = NewRequest(*engine_, RequestKind::kWriteZeroes, offset, length, std::move(cb));
  r->flags = flags;
  r->start(&WriteZeroesSegment);
}

void Cache::write_zeroes_unaligned(uint64_t offset, uint64_t length, WriteFlags flags,
                                   IoCallback cb) {
  // The whole sectors inside are zeroed as usual; the partial ones at either end are written
  // with zeros (a read-modify-write under the line lock).
  static const std::array<std::byte, kSectorSize> kZeros{};
  const uint64_t end = offset + length;
  const uint64_t inner_start = std::min(CoverEnd(offset), end);
  const uint64_t inner_end = std::max(CoverStart(end), inner_start);
  auto join = IoJoin::Make(std::move(cb));
  if (inner_start > offset) {
    write_impl(offset, std::span(kZeros.data(), inner_start - offset), flags, join->add());
  }
  if (inner_end > inner_start) write_zeroes_impl(inner_start, inner_end - inner_start, flags, join->add());
  if (end > inner_end) write_impl(inner_end, std::span(kZeros.data(), end - inner_end), flags, join->add());
  join->seal();
}

void Cache::prefetch_impl(uint64_t offset, uint64_t length, IoCallback cb) {
  // A range in 512-byte sectors brings in the 4 KiB sectors that cover it (the read path's
  // device requests must be whole sectors).
  if (!SectorAligned(offset, length)) {
    const uint64_t start = CoverStart(offset);
    return prefetch_impl(start, CoverEnd(offset + length) - start, std::move(cb));
  }
  // Read the range through the normal read path (which fills the cache) in bounded chunks.
  const uint64_t chunk = std::min<uint64_t>(length, 4ull << 20);
  auto buf = std::shared_ptr<std::byte>(
      static_cast<std::byte*>(std::aligned_alloc(kSectorSize, chunk)), std::free);
  Request* r = NewRequest(*engine_, RequestKind::kPrefetch, offset, chunk,
                          [this, offset, length, chunk, buf, cb = std::move(cb)](Status s) mutable {
                            if (!s.ok() || chunk == length) return cb(std::move(s));
                            prefetch_impl(offset + chunk, length - chunk, std::move(cb));
                          });
  // A failed SSD takes no fills.
  if (engine_->ssd_health.failed()) r->mode = CacheMode::kPassThrough;
  r->read_buf = buf.get();
  r->start_runs(&ReadRun);
}

}  // namespace tiercache
