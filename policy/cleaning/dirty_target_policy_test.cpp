#include "policy/cleaning/dirty_target_policy.h"

#include <gtest/gtest.h>

#include <map>
#include <ostream>
#include <string>

namespace tiercache {

// gtest prints a plan this way when an expectation fails.
void PrintTo(const CleaningPlan& p, std::ostream* os) {
  *os << "{clean_now=" << p.clean_now << " max_blocks=" << p.max_blocks
      << " order=" << (p.order == CleaningOrder::kLba ? "lba" : "oldest")
      << " recheck_after=" << p.recheck_after.count()
      << " wake_at=" << p.wake_at_dirty_blocks << " reason=" << CleaningReasonName(p.reason)
      << " yield=" << p.yield_to_clients << "}";
}

namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// Defaults: target 0.2 and high 0.5 of 1000 blocks are 200 and 500 blocks; age trigger
// 30 s - 5 s = 25 s; idle after 1 s; batches 64 (busy) and 4096 (idle/drain); share 0.1.
CleaningInputs Active() {
  CleaningInputs in;
  in.now = seconds(100);
  in.total_blocks = 1000;
  in.dirty_blocks = 100;
  in.oldest_dirty_age = seconds(1);
  in.since_foreground = milliseconds(10);
  return in;
}

CleaningPlan Clean(uint32_t blocks, CleaningReason reason,
                   CleaningOrder order = CleaningOrder::kLba) {
  CleaningPlan p;
  p.clean_now = true;
  p.max_blocks = blocks;
  p.order = order;
  p.reason = reason;
  p.yield_to_clients = reason == CleaningReason::kIdle;  // OnlyIdleBatchesYieldToClients
  return p;
}

CleaningPlan Wait(Nanos recheck, uint64_t wake_at, CleaningReason reason) {
  CleaningPlan p;
  p.recheck_after = recheck;
  p.wake_at_dirty_blocks = wake_at;
  p.reason = reason;
  return p;
}

CleaningPlan PlanFor(const CleaningInputs& in, CleaningOptions o = {}) {
  return DirtyTargetPolicy(o).plan(in);
}

TEST(DirtyTargetPolicyTest, IdleCleansInLbaOrderWithIdleBatches) {
  CleaningInputs in = Active();
  in.since_foreground = seconds(1);  // exactly idle_after: idle
  EXPECT_EQ(PlanFor(in), Clean(4096, CleaningReason::kIdle));
  in.since_foreground = Nanos::max();  // no foreground request ever
  EXPECT_EQ(PlanFor(in), Clean(4096, CleaningReason::kIdle));
}

// An idle batch assumes no client: the cleaner stops it at the first request. The others clean
// whatever the clients do (drain, age, high) or are small already (the busy share).
TEST(DirtyTargetPolicyTest, OnlyIdleBatchesYieldToClients) {
  CleaningInputs in = Active();
  in.since_foreground = seconds(2);
  EXPECT_TRUE(PlanFor(in).yield_to_clients);
  in.drain_requested = true;
  EXPECT_FALSE(PlanFor(in).yield_to_clients);
  in = Active();
  in.dirty_blocks = 600;  // above high
  EXPECT_FALSE(PlanFor(in).yield_to_clients);
  in.since_foreground = seconds(2);  // idle too: high comes first
  EXPECT_FALSE(PlanFor(in).yield_to_clients);
  in = Active();
  in.oldest_dirty_age = seconds(26);  // the age bound
  in.since_foreground = seconds(2);
  EXPECT_FALSE(PlanFor(in).yield_to_clients);
  in = Active();
  in.dirty_blocks = 300;  // above target, clients active: a busy-share batch
  ASSERT_TRUE(PlanFor(in).clean_now);
  EXPECT_FALSE(PlanFor(in).yield_to_clients);
}

TEST(DirtyTargetPolicyTest, ActiveBelowTargetWaitsUntilIdleOrAge) {
  CleaningInputs in = Active();
  in.dirty_blocks = 200;  // at the target, not above
  // Idle in 1 s - 10 ms; age trigger in 25 s - 1 s; wake once dirty passes 200.
  EXPECT_EQ(PlanFor(in), Wait(milliseconds(990), 201, CleaningReason::kNone));
  in.oldest_dirty_age = milliseconds(24'700);  // the age trigger comes first: 300 ms
  EXPECT_EQ(PlanFor(in), Wait(milliseconds(300), 201, CleaningReason::kNone));
}

TEST(DirtyTargetPolicyTest, NothingDirtyWaitsForTheFirstDirtyBlock) {
  CleaningInputs in = Active();
  in.dirty_blocks = 0;
  in.oldest_dirty_age = Nanos(0);
  EXPECT_EQ(PlanFor(in), Wait(kNeverRecheck, 1, CleaningReason::kNone));
  in.drain_requested = true;  // nothing to drain: the cleaner completes the drain itself
  in.since_foreground = seconds(5);
  EXPECT_EQ(PlanFor(in), Wait(kNeverRecheck, 1, CleaningReason::kNone));
}

TEST(DirtyTargetPolicyTest, ActiveAboveTargetCleansWithinTheBusyShare) {
  CleaningInputs in = Active();
  in.dirty_blocks = 201;
  // No batch yet: clean now, a busy-sized batch.
  EXPECT_EQ(PlanFor(in), Clean(64, CleaningReason::kRatio));
  // A 20 ms batch just ended: 20 ms x (1 - 0.1) / 0.1 = 180 ms of pause; wake above 500 blocks.
  in.last_batch_end = in.now;
  in.last_batch_duration = milliseconds(20);
  in.last_batch_blocks = 64;
  in.last_batch_bytes = 64 * 4096;
  EXPECT_EQ(PlanFor(in), Wait(milliseconds(180), 501, CleaningReason::kRatio));
  // 179.999999 ms later: 1 ns to go (foreground kept the cache active).
  in.now = in.last_batch_end + milliseconds(180) - Nanos(1);
  EXPECT_EQ(PlanFor(in), Wait(Nanos(1), 501, CleaningReason::kRatio));
  in.now += Nanos(1);
  EXPECT_EQ(PlanFor(in), Clean(64, CleaningReason::kRatio));
}

TEST(DirtyTargetPolicyTest, DutyCycleFollowsTheShare) {
  CleaningOptions o;
  o.busy_share = 0.25;
  CleaningInputs in = Active();
  in.dirty_blocks = 300;
  in.last_batch_end = in.now - milliseconds(10);
  in.last_batch_duration = milliseconds(30);  // pause 30 x 0.75 / 0.25 = 90 ms, 10 ms gone
  EXPECT_EQ(PlanFor(in, o), Wait(milliseconds(80), 501, CleaningReason::kRatio));
  // The idle moment (990 ms) or the age trigger can come before the pause ends.
  in.last_batch_duration = seconds(1);  // pause 3 s
  EXPECT_EQ(PlanFor(in, o), Wait(milliseconds(990), 501, CleaningReason::kRatio));
  o.busy_share = 1.0;  // no pause at all
  EXPECT_EQ(PlanFor(in, o), Clean(64, CleaningReason::kRatio));
}

TEST(DirtyTargetPolicyTest, AboveHighCleansNowWhateverTheClientsDo) {
  CleaningInputs in = Active();
  in.dirty_blocks = 501;
  in.last_batch_end = in.now;
  in.last_batch_duration = milliseconds(20);  // no pause above high
  EXPECT_EQ(PlanFor(in), Clean(64, CleaningReason::kHigh));
  in.since_foreground = seconds(2);  // idle too: large batches
  EXPECT_EQ(PlanFor(in), Clean(4096, CleaningReason::kHigh));
  in.dirty_blocks = 500;
  EXPECT_EQ(PlanFor(in), Clean(4096, CleaningReason::kIdle));
}

TEST(DirtyTargetPolicyTest, AgeNearTheBoundCleansOldestFirst) {
  CleaningInputs in = Active();
  in.oldest_dirty_age = seconds(25) - Nanos(1);
  EXPECT_EQ(PlanFor(in), Wait(Nanos(1), 201, CleaningReason::kNone));
  in.oldest_dirty_age = seconds(25);
  EXPECT_EQ(PlanFor(in), Clean(64, CleaningReason::kAge, CleaningOrder::kOldestFirst));
  in.dirty_blocks = 900;  // above high too: age still decides the order
  in.last_batch_end = in.now;
  in.last_batch_duration = milliseconds(20);
  EXPECT_EQ(PlanFor(in), Clean(64, CleaningReason::kAge, CleaningOrder::kOldestFirst));
  in.since_foreground = seconds(3);
  EXPECT_EQ(PlanFor(in), Clean(4096, CleaningReason::kAge, CleaningOrder::kOldestFirst));
}

TEST(DirtyTargetPolicyTest, DrainCleansNowAtFullSpeed) {
  CleaningInputs in = Active();
  in.drain_requested = true;
  in.oldest_dirty_age = seconds(29);  // drain is the fastest way to clean old blocks too
  in.last_batch_end = in.now;
  in.last_batch_duration = milliseconds(20);
  EXPECT_EQ(PlanFor(in), Clean(4096, CleaningReason::kDrain));
}

TEST(DirtyTargetPolicyTest, CountsBatchesPerReasonAndWaits) {
  DirtyTargetPolicy policy{CleaningOptions{}};
  CleaningInputs in = Active();
  EXPECT_FALSE(policy.plan(in).clean_now);  // wait
  in.dirty_blocks = 201;
  EXPECT_TRUE(policy.plan(in).clean_now);  // ratio
  in.dirty_blocks = 600;
  EXPECT_TRUE(policy.plan(in).clean_now);  // high
  EXPECT_TRUE(policy.plan(in).clean_now);  // high
  in.drain_requested = true;
  EXPECT_TRUE(policy.plan(in).clean_now);  // drain
  std::map<std::string, uint64_t> c;
  policy.visit_counters([&](std::string_view n, uint64_t v) { c[std::string(n)] = v; });
  std::map<std::string, uint64_t> expected = {
      {"cleaning_batches_drain", 1}, {"cleaning_batches_age", 0},
      {"cleaning_batches_high", 2},  {"cleaning_batches_idle", 0},
      {"cleaning_batches_ratio", 1}, {"cleaning_waits", 1}};
  EXPECT_EQ(c, expected);
  EXPECT_EQ(policy.memory_size(), 0u);
  EXPECT_STREQ(policy.name(), "target");
}

}  // namespace
}  // namespace tiercache
