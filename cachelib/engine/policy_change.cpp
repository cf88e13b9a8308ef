// Engine::set_policies: a live policy change, recorded in the superblock first, then put in force
// shard by shard in steps of Engine::kPolicyLearnBatch lines per shard-lock hold.
#include <algorithm>

#include "cachelib/common/clock.h"
#include "cachelib/common/logger.h"
#include "cachelib/engine/engine.h"
#include "policy/admission/admission_factory.h"

namespace tiercache {
namespace {

// event=policy_swap: how the new replacement policies' learning held the shard locks.
void LogPolicySwap(const PolicySwapReport& r) {
  auto us = [](Nanos n) { return std::to_string(n.count() / 1000); };
  const Nanos mean = r.holds ? r.total_hold / int64_t(r.holds) : Nanos(0);
  LogInfo("policy_swap", {{"shards", std::to_string(r.shards)},
                          {"holds", std::to_string(r.holds)},
                          {"longest_hold_us", us(r.longest_hold)},
                          {"mean_hold_us", us(mean)},
                          {"total_us", us(r.total)}});
}

}  // namespace

struct Engine::PolicyChange {
  PolicyOptions next;
  std::vector<ShardPolicies> made;  // per shard, until its change begins
  size_t shard = 0;                 // the shard learning now; all before it are done
  bool begun = false;               // whether that shard's change has begun
  PolicySwapReport report;
  Nanos start{0};
  IoCallback answer;
};

void Engine::set_policies(const PolicyOptions& next, IoCallback done) {
  // Counted in flight before closing is read: close() sets closing, then waits for nothing in
  // flight, so either it waits for this change or the change sees it closing.
  inflight.fetch_add(1);
  auto refuse = [this, &done](Status s) {
    done(std::move(s));
    inflight.fetch_sub(1, std::memory_order_release);
  };
  if (closing.load()) {
    return refuse(Status::Busy("the cache is closing (its policies stay as they are)"));
  }
  if (Status s = next.validate(); !s.ok()) return refuse(std::move(s));
  if (policy_change_running_.exchange(true, std::memory_order_acq_rel)) {
    return refuse(Status::Busy("another policy change is running"));
  }
  // Built before anything changes: an allocation failure or bad option leaves all as it was.
  const PolicyOptions previous = policies();
  auto change = std::make_shared<PolicyChange>();
  for (const auto& shard : shards_) {
    auto p = MakeChangedPolicies(previous, next, shard->line_count(), surge_slot(shard->number()));
    if (!p.ok()) {
      policy_change_running_.store(false, std::memory_order_release);
      return refuse(p.status());
    }
    if (p->replacement) ++change->report.shards;
    change->made.push_back(std::move(p).value());
  }
  change->next = next;
  change->answer = std::move(done);
  store->set_policies(next, [this, previous, change](Status s) {
    if (s.ok()) {
      change->start = SteadyClock::instance().now();
      return learn_policies(change);
    }
    // One superblock copy may hold `next` already: record the policies in force again.
    store->set_policies(previous, [](Status) {});
    policy_change_running_.store(false, std::memory_order_release);
    change->answer(std::move(s));
    inflight.fetch_sub(1, std::memory_order_release);
  });
}

void Engine::learn_policies(std::shared_ptr<PolicyChange> change) {
  PolicyChange& c = *change;
  Shard& shard = *shards_[c.shard];
  ShardPolicies old;  // freed once the lock is released
  bool done;
  {
    std::lock_guard lock(shard.mu);
    const Nanos t0 = SteadyClock::instance().now();
    if (!c.begun) {
      shard.begin_policy_change(c.made[c.shard].replacement, c.made[c.shard].admission);
      old.admission = std::move(c.made[c.shard].admission);
      c.begun = true;
    }
    const bool learns = shard.learning();
    done = shard.learn_policy(kPolicyLearnBatch);
    if (done) {
      shard.end_policy_change(old.replacement);
      if (learns) c.report.lines += shard.used_lines();
    }
    const Nanos held = SteadyClock::instance().now() - t0;
    if (learns) {
      ++c.report.holds;
      c.report.longest_hold = std::max(c.report.longest_hold, held);
      c.report.total_hold += held;
    }
  }
  if (done) {
    ++c.shard;
    c.begun = false;
  }
  // Shard by shard: the next step of a shard finds its policy's arrays still in the CPU caches
  // (a round over all shards per step learned S3-FIFO ~2.5x slower per line, its ghost filter's
  // probes missing each time).
  if (c.shard < shards_.size()) {
    return options.background_loop->post([this, change] { learn_policies(change); });
  }
  finish_policy_change(c);
}

void Engine::finish_policy_change(PolicyChange& c) {
  c.report.total = SteadyClock::instance().now() - c.start;
  if (c.report.shards) LogPolicySwap(c.report);
  sequential.set_admission_refuses(AdmissionRefusesMisses(c.next.admission));
  sequential.reconfigure(c.next.sequential);
  {
    std::lock_guard lock(policies_mu_);
    policies_ = c.next;
    if (c.report.shards) last_swap_ = c.report;
  }
  policy_change_running_.store(false, std::memory_order_release);
  c.answer(Status::Ok());
  inflight.fetch_sub(1, std::memory_order_release);
}

PolicySwapReport Engine::last_policy_swap() const {
  std::lock_guard lock(policies_mu_);
  return last_swap_;
}

}  // namespace tiercache
