// Engine::trust_round: warm after a crash (docs/io-paths.md). Marks the untrusted lines, flushes
// the core, trusts the lines no change touched meanwhile and persists their records; each walk
// goes over the shards in turn, CacheOptions::trust_batch list entries per shard-lock hold.
#include <algorithm>
#include <vector>

#include "cachelib/common/clock.h"
#include "cachelib/engine/engine.h"
#include "cachelib/engine/shard.h"

namespace tiercache {

static_assert(CacheOptions{}.trust_batch == Engine::kTrustBatch);

struct Engine::TrustRound {
  uint64_t completed = 0;  // the persist epoch completed when marking began
  size_t shard = 0;            // the shard whose step is next
  std::vector<uint8_t> state;  // per shard in this walk: 0 not begun, 1 walking, 2 done
  size_t walking = 0;          // shards not done with this walk
  bool trusting = false;       // the second walk (after the core flush)
  TrustRoundReport report;
  Nanos start{0};
  IoCallback done;

  void begin_walk(size_t shards) {
    shard = 0;
    state.assign(shards, 0);
    walking = shards;
  }
};

void Engine::trust_round(IoCallback done) {
  bool untrust_pending = false;
  for (auto& shard : shards_) {
    std::lock_guard lock(shard->mu);
    untrust_pending |= !persisted(shard->untrust_need());
  }
  auto start = [this](IoCallback done) {
    auto round = std::make_shared<TrustRound>();
    round->completed = persist_completed_.load(std::memory_order_acquire);
    round->start = SteadyClock::instance().now();
    round->done = std::move(done);
    round->begin_walk(shards_.size());
    trust_step(std::move(round));
  };
  // Only a durable untrust may be undone (Shard::mark_trust_step): persist those first.
  if (untrust_pending) {
    return persist([start, done = std::move(done)](Status s) mutable {
      if (!s.ok()) return done(std::move(s));
      start(std::move(done));
    });
  }
  start(std::move(done));
}

void Engine::trust_step(std::shared_ptr<TrustRound> round) {
  TrustRound& r = *round;
  Shard& shard = *shards_[r.shard];
  bool done;
  {
    std::lock_guard lock(shard.mu);
    const Nanos t0 = SteadyClock::instance().now();
    if (r.state[r.shard] == 0) {
      if (!r.trusting) shard.release_durable(r.completed);
      shard.begin_trust_walk();
      r.state[r.shard] = 1;
    }
    const uint32_t batch = options.trust_batch ? options.trust_batch : UINT32_MAX;
    done = r.trusting ? shard.trust_step(batch, [this](uint32_t id) { note_changed(id); },
                                         r.report.trusted)
                      : shard.mark_trust_step(batch, /*durable_only=*/true, r.report.marked);
    const Nanos held = SteadyClock::instance().now() - t0;
    ++r.report.holds;
    r.report.longest_hold = std::max(r.report.longest_hold, held);
    r.report.total_hold += held;
  }
  if (done) {
    r.state[r.shard] = 2;
    --r.walking;
  }
  // The shards take turns: a request waiting for a shard's lock gets it while the others' steps
  // run (a shard's next step, right after its last, took the lock again before the waiting
  // thread woke: readers waited up to 250 ms over 100 GiB).
  if (r.walking > 0) {
    do {
      r.shard = (r.shard + 1) % shards_.size();
    } while (r.state[r.shard] == 2);
    return options.background_loop->post([this, round] { trust_step(round); });
  }
  if (r.trusting || r.report.marked == 0) return finish_trust_round(r, Status::Ok());
  // Every mark precedes the flush. The candidates' SSD copies became durable with the persist's
  // first flush; their core copies (what a fill read, what a write-through wrote) with this one.
  core.flush([this, round](Status s) {
    if (!s.ok()) return finish_trust_round(*round, std::move(s));
    round->trusting = true;
    round->begin_walk(shards_.size());
    trust_step(round);
  });
}

void Engine::finish_trust_round(TrustRound& r, Status status) {
  r.report.total = SteadyClock::instance().now() - r.start;
  {
    std::lock_guard lock(policies_mu_);
    last_trust_ = r.report;
  }
  if (!status.ok() || r.report.trusted == 0) return r.done(std::move(status));
  persist(std::move(r.done));
}

void Engine::trust_all_idle() {
  for (auto& shard : shards_) {
    std::lock_guard lock(shard->mu);
    shard->mark_trust_candidates(/*durable_only=*/false);
    shard->trust_candidates([this](uint32_t id) { note_changed(id); });
  }
}

void Engine::untrust_all_idle() {
  for (auto& shard : shards_) {
    std::lock_guard lock(shard->mu);
    shard->untrust_all([this](uint32_t id) { note_changed(id); });
  }
}

TrustRoundReport Engine::last_trust_round() const {
  std::lock_guard lock(policies_mu_);
  return last_trust_;
}

}  // namespace tiercache
