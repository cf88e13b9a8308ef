// Shard's live replacement-policy change in steps (begin_policy_change, learn_policy,
// end_policy_change): the learner sees the mapped lines in line order, a step at a time; events
// on lines it passed reach it too, events on lines ahead of it do not (it learns those lines as
// they are when it gets there); the old policy keeps every event and picks every victim until the
// end; afterwards only the new policy hears of the lines. A strict recording fake checks it call
// by call.
#include "cachelib/engine/shard.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <string>
#include <vector>

#include "policy/admission/always_admit.h"

namespace tiercache {
namespace {

// A FIFO that logs every call ("insert 3 103", "hit 3", "evict 3 103", "remove 3", "pick") and
// fails the test on a call that contradicts what it knows: a slot inserted twice, or a hit,
// removal or eviction of a slot it does not hold.
class RecordingPolicy final : public ReplacementPolicy {
 public:
  explicit RecordingPolicy(std::vector<std::string>* log) : log_(*log) {}
  const char* name() const override { return "recording"; }
  void on_insert(Slot slot, uint64_t block) override {
    log_.push_back("insert " + std::to_string(slot) + " " + std::to_string(block));
    EXPECT_FALSE(holds(slot)) << "slot " << slot << " inserted twice";
    order_.push_back(slot);
  }
  void on_hit(Slot slot) override {
    log_.push_back("hit " + std::to_string(slot));
    EXPECT_TRUE(holds(slot)) << "hit of unknown slot " << slot;
  }
  void on_remove(Slot slot) override {
    log_.push_back("remove " + std::to_string(slot));
    drop(slot);
  }
  std::optional<Slot> pick_victim(const std::function<bool(Slot)>& can_evict,
                                  uint32_t max_scan) override {
    log_.push_back("pick");
    for (uint32_t i = 0; i < order_.size() && i < max_scan; ++i) {
      if (can_evict(order_[i])) return order_[i];
    }
    return std::nullopt;
  }
  void on_evict(Slot slot, uint64_t block) override {
    log_.push_back("evict " + std::to_string(slot) + " " + std::to_string(block));
    drop(slot);
  }
  uint64_t memory_size() const override { return 0; }
  size_t size() const { return order_.size(); }

 private:
  bool holds(Slot slot) const {
    return std::find(order_.begin(), order_.end(), slot) != order_.end();
  }
  void drop(Slot slot) {
    auto it = std::find(order_.begin(), order_.end(), slot);
    ASSERT_NE(it, order_.end()) << "slot " << slot << " is not held";
    order_.erase(it);
  }
  std::vector<std::string>& log_;
  std::deque<Slot> order_;
};

// Admits every miss and counts the hits it hears of.
class HitCountingAdmission final : public AdmissionPolicy {
 public:
  explicit HitCountingAdmission(uint64_t* hits) : hits_(*hits) {}
  const char* name() const override { return "hit-counting"; }
  void on_hit(uint64_t, bool) override { ++hits_; }
  Admission admit(const AdmissionQuery&) override { return {.admitted = true}; }
  void on_evict(uint64_t) override {}
  uint64_t memory_size() const override { return 0; }

 private:
  uint64_t& hits_;
};

constexpr uint32_t kFirst = 64;  // global ids 64..71: slots 0..7 (a mix-up of the two shows)
constexpr uint32_t kLines = 8;

class ShardPolicyChangeTest : public ::testing::Test {
 protected:
  ShardPolicyChangeTest() {
    auto old = std::make_unique<RecordingPolicy>(&old_log);
    old_policy = old.get();
    // The last of 9 shards of 8 contiguous lines.
    shard = std::make_unique<Shard>(ShardLines(kFirst + kLines, 9, 0), 8, 1, std::move(old),
                                    std::make_unique<HitCountingAdmission>(&admission_hits),
                                    /*keep_reserve=*/false);
  }
  // Maps `core_line` to a line, evicting only lines with id >= min_victim; returns the id.
  uint32_t Allocate(uint64_t core_line, uint32_t min_victim = kFirst) {
    uint32_t to_limbo = 0;
    bool evicted = false;
    const uint32_t id = shard->allocate(
        core_line, [min_victim](uint32_t id) { return id >= min_victim; }, &to_limbo, &evicted);
    EXPECT_EQ(to_limbo, Shard::kNoLine);  // fresh lines are durably untrusted: freed at once
    return id;
  }
  void Fill(uint32_t count) {
    for (uint32_t i = 0; i < count; ++i) ASSERT_EQ(Allocate(100 + i), kFirst + i);
    old_log.clear();
  }
  // Starts a change to a new recording policy (the admission policy stays).
  void Begin() {
    std::unique_ptr<ReplacementPolicy> next = std::make_unique<RecordingPolicy>(&new_log);
    new_policy = static_cast<RecordingPolicy*>(next.get());
    std::unique_ptr<AdmissionPolicy> admission;
    shard->begin_policy_change(next, admission);
    EXPECT_EQ(next, nullptr);
    EXPECT_TRUE(shard->learning());
  }
  // Ends the change; returns the old policy handed back.
  std::unique_ptr<ReplacementPolicy> End() {
    std::unique_ptr<ReplacementPolicy> old;
    shard->end_policy_change(old);
    EXPECT_FALSE(shard->learning());
    EXPECT_EQ(&shard->replacement(), new_policy);
    return old;
  }

  std::vector<std::string> old_log, new_log;
  uint64_t admission_hits = 0;
  RecordingPolicy* old_policy = nullptr;
  RecordingPolicy* new_policy = nullptr;
  std::unique_ptr<Shard> shard;
};

using Log = std::vector<std::string>;

// A warm line (Admission::warm) is hit once in replacement, old and learning alike where a touch
// would reach them; the admission policy hears only of touches, not of warm lines.
TEST_F(ShardPolicyChangeTest, WarmIsAReplacementHitOnly) {
  ASSERT_NO_FATAL_FAILURE(Fill(kLines));
  Begin();
  EXPECT_FALSE(shard->learn_policy(3));
  shard->warm(kFirst + 1);  // passed
  shard->warm(kFirst + 5);  // ahead
  EXPECT_EQ(admission_hits, 0u);
  shard->touch(kFirst + 1, false);
  EXPECT_EQ(admission_hits, 1u);
  EXPECT_EQ(old_log, (Log{"hit 1", "hit 5", "hit 1"}));
  EXPECT_EQ(new_log, (Log{"insert 0 100", "insert 1 101", "insert 2 102", "hit 1", "hit 1"}));
}

// A full shard learned 3 lines at a time with hits, evictions and inserts between the steps:
// those on lines 0-2 (passed) reach the learner, those on lines 3-7 do not until it gets there.
// The old policy hears of everything and picks both victims.
TEST_F(ShardPolicyChangeTest, LearnsInStepsAndForwardsEventsOnPassedLines) {
  ASSERT_NO_FATAL_FAILURE(Fill(kLines));
  Begin();
  EXPECT_TRUE(new_log.empty());  // beginning learns nothing: the first step does
  EXPECT_FALSE(shard->learn_policy(3));
  EXPECT_EQ(new_log, (Log{"insert 0 100", "insert 1 101", "insert 2 102"}));

  shard->touch(kFirst + 1, false);  // passed
  shard->touch(kFirst + 5, false);  // ahead
  EXPECT_EQ(Allocate(200), kFirst + 0);  // evicts line 0 (passed), maps 200 there
  EXPECT_EQ(Allocate(201, kFirst + 3), kFirst + 3);  // evicts line 3 (ahead), maps 201 there
  EXPECT_EQ(old_log, (Log{"hit 1", "hit 5", "pick", "evict 0 100", "insert 0 200", "pick",
                          "evict 3 103", "insert 3 201"}));
  EXPECT_EQ(new_log, (Log{"insert 0 100", "insert 1 101", "insert 2 102", "hit 1",
                          "evict 0 100", "insert 0 200"}));

  EXPECT_FALSE(shard->learn_policy(3));
  EXPECT_TRUE(shard->learn_policy(3));
  EXPECT_EQ(new_log, (Log{"insert 0 100", "insert 1 101", "insert 2 102", "hit 1",
                          "evict 0 100", "insert 0 200", "insert 3 201", "insert 4 104",
                          "insert 5 105", "insert 6 106", "insert 7 107"}));
  EXPECT_EQ(new_policy->size(), shard->used_lines());
  EXPECT_EQ(old_log.size(), 8u);  // learning told the old policy nothing

  const auto old = End();
  EXPECT_EQ(old.get(), old_policy);
  shard->touch(kFirst + 5, false);
  EXPECT_EQ(Allocate(202), kFirst + 1);  // the new policy's oldest line: 101 (FIFO)
  EXPECT_EQ(old_log.size(), 8u);         // the old policy hears nothing after the end
  EXPECT_EQ(new_log, (Log{"insert 0 100", "insert 1 101", "insert 2 102", "hit 1",
                          "evict 0 100", "insert 0 200", "insert 3 201", "insert 4 104",
                          "insert 5 105", "insert 6 106", "insert 7 107", "hit 5", "pick",
                          "evict 1 101", "insert 1 202"}));
}

// A write moving a passed line to a fresh line ahead of the learner (Shard::move_to_new_line):
// the learner hears of the old line's eviction now and learns the new line when it gets there;
// the old line, in limbo, is skipped. Free lines are skipped too.
TEST_F(ShardPolicyChangeTest, AMoveDuringTheChangeIsLearnedOnce) {
  ASSERT_NO_FATAL_FAILURE(Fill(6));
  Begin();
  EXPECT_FALSE(shard->learn_policy(4));
  EXPECT_EQ(shard->move_to_new_line(kFirst + 1), kFirst + 6);
  EXPECT_EQ(old_log, (Log{"evict 1 101", "insert 6 101"}));
  EXPECT_TRUE(shard->learn_policy(4));
  EXPECT_EQ(new_log, (Log{"insert 0 100", "insert 1 101", "insert 2 102", "insert 3 103",
                          "evict 1 101", "insert 4 104", "insert 5 105", "insert 6 101"}));
  EXPECT_EQ(new_policy->size(), 6u);
  EXPECT_EQ(shard->used_lines(), 6u);
  End();
}

// Steps never go past the shard's end; a step that reaches it says so (even a step of exactly the
// lines left), and the learner learns each mapped line once.
TEST_F(ShardPolicyChangeTest, TheLastStepEndsAtTheShardsEnd) {
  ASSERT_NO_FATAL_FAILURE(Fill(5));
  Begin();
  EXPECT_FALSE(shard->learn_policy(4));
  EXPECT_TRUE(shard->learn_policy(4));
  EXPECT_EQ(new_log, (Log{"insert 0 100", "insert 1 101", "insert 2 102", "insert 3 103",
                          "insert 4 104"}));
  End();
  Begin();
  EXPECT_TRUE(shard->learn_policy(kLines));
  EXPECT_EQ(new_policy->size(), 5u);
  End();
}

// A line a TRIM emptied (drop_empty) leaves the index and the policies like an eviction, the
// learner too once it passed the line; it is free at once when no durable record claims it, and
// parked in limbo when its durable record may say dirty (its block cannot be mapped meanwhile).
TEST_F(ShardPolicyChangeTest, AnEmptiedLineIsFreedOrParkedAndLeavesBothPolicies) {
  ASSERT_NO_FATAL_FAILURE(Fill(kLines));
  Begin();
  EXPECT_FALSE(shard->learn_policy(3));
  EXPECT_FALSE(shard->drop_empty(kFirst + 1));  // passed, fresh: durably untrusted
  shard->set_durable_dirty(kFirst + 5, true);
  EXPECT_TRUE(shard->drop_empty(kFirst + 5));  // ahead
  EXPECT_EQ(old_log, (Log{"evict 1 101", "evict 5 105"}));
  EXPECT_EQ(new_log, (Log{"insert 0 100", "insert 1 101", "insert 2 102", "evict 1 101"}));
  EXPECT_EQ(shard->used_lines(), kLines - 2);
  EXPECT_EQ(shard->lookup(101), Shard::kNoLine);
  EXPECT_EQ(shard->lookup(105), Shard::kNoLine);
  EXPECT_FALSE(shard->in_limbo(101));
  EXPECT_TRUE(shard->in_limbo(105));
  old_log.clear();
  EXPECT_EQ(Allocate(105), Shard::kNoLine);  // two records must never map one block
  EXPECT_EQ(Allocate(200), kFirst + 1);      // the freed line, no eviction
  EXPECT_EQ(old_log, (Log{"insert 1 200"}));
  EXPECT_EQ(shard->used_lines(), kLines - 1);
  EXPECT_TRUE(shard->learn_policy(kLines));  // the rest, without the line in limbo
  EXPECT_EQ(new_policy->size(), kLines - 1);
  End();
}

// An admission-only change: the admission policy is in force at once, no replacement policy
// learns, and the first step says the shard is done.
TEST_F(ShardPolicyChangeTest, AnAdmissionOnlyChangeTakesNoSteps) {
  ASSERT_NO_FATAL_FAILURE(Fill(3));
  const AdmissionPolicy* before = &shard->admission();
  std::unique_ptr<ReplacementPolicy> replacement;
  std::unique_ptr<AdmissionPolicy> admission = std::make_unique<AlwaysAdmit>();
  const AdmissionPolicy* next = admission.get();
  shard->begin_policy_change(replacement, admission);
  EXPECT_EQ(&shard->admission(), next);
  EXPECT_EQ(admission.get(), before);  // handed back, to be freed outside the lock
  EXPECT_FALSE(shard->learning());
  EXPECT_TRUE(shard->learn_policy(1));
  shard->end_policy_change(replacement);
  EXPECT_EQ(replacement, nullptr);
  EXPECT_EQ(&shard->replacement(), old_policy);
  EXPECT_TRUE(old_log.empty());
}

}  // namespace
}  // namespace tiercache
