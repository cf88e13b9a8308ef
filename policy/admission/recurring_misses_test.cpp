#include "policy/admission/recurring_misses.h"

#include <gtest/gtest.h>

namespace tiercache {
namespace {

// Every block followed; span 12 capacities = 3072 accesses. The share starts at 0.9, steps +0.01
// and -0.2, floor 0.05.
constexpr uint32_t kCapacity = 256;

RecurringMisses Make() { return RecurringMisses(kCapacity, 0, 0, RecurringMisses::Params{}); }

// How many of blocks [0, n) the share admits.
int Admitted(const RecurringMisses& recurring, int n) {
  int admitted = 0;
  for (int block = 0; block < n; ++block) admitted += recurring.admits(block);
  return admitted;
}

TEST(RecurringMissesTest, TellsWhetherABlockWasAccessedWithinTheSpan) {
  RecurringMisses recurring = Make();
  EXPECT_FALSE(recurring.observe(5, 1, false));
  EXPECT_TRUE(recurring.observe(5, 2, true));
  EXPECT_FALSE(recurring.observe(6, 3, false));
}

TEST(RecurringMissesTest, NearlyTheWholeClassIsAdmittedUntilThereIsEvidence) {
  RecurringMisses recurring = Make();
  EXPECT_DOUBLE_EQ(recurring.share(), 0.9);
  EXPECT_NEAR(Admitted(recurring, 10000), 9000, 200);
}

// A returning set that evicts itself: each admission evicted unhit takes 0.2 from the share, and
// the blocks still admitted are a fixed subset (the same ones every time they come back).
TEST(RecurringMissesTest, AdmissionsEvictedUnhitShrinkTheShare) {
  RecurringMisses recurring = Make();
  recurring.record_admission(1, 1);
  recurring.on_evict(1);
  EXPECT_DOUBLE_EQ(recurring.share(), 0.7);
  EXPECT_EQ(recurring.sampled_wasted(), 1u);
  recurring.on_evict(1);  // once per admission
  EXPECT_DOUBLE_EQ(recurring.share(), 0.7);
  EXPECT_NEAR(Admitted(recurring, 10000), 7000, 200);
  recurring.record_admission(2, 2);
  recurring.on_evict(2);
  EXPECT_DOUBLE_EQ(recurring.share(), 0.5);
  const RecurringMisses fresh = Make();
  int subset = 0;
  for (int block = 0; block < 10000; ++block) {
    if (recurring.admits(block)) {
      subset += 1;
      ASSERT_TRUE(fresh.admits(block)) << block;
    }
  }
  EXPECT_NEAR(subset, 5000, 200);
  for (uint64_t block = 10; block < 20; ++block) {
    recurring.record_admission(block, 3);
    recurring.on_evict(block);
  }
  EXPECT_DOUBLE_EQ(recurring.share(), 0.05);  // the floor
  EXPECT_NEAR(Admitted(recurring, 10000), 500, 100);
}

// A first hit within the span gives 0.01 back; later hits, hits of blocks the class did not
// admit and evictions after a hit count nothing.
TEST(RecurringMissesTest, AdmissionsHitGrowTheShare) {
  RecurringMisses recurring = Make();
  recurring.record_admission(1, 1);
  recurring.on_evict(1);
  recurring.record_admission(2, 2);
  recurring.observe(2, 3, /*hit=*/true);
  EXPECT_DOUBLE_EQ(recurring.share(), 0.71);
  EXPECT_EQ(recurring.sampled_hits(), 1u);
  recurring.observe(2, 4, true);
  recurring.on_evict(2);
  recurring.observe(3, 5, true);
  EXPECT_DOUBLE_EQ(recurring.share(), 0.71);
  recurring.record_admission(4, 6);
  recurring.observe(4, 6 + 3073, true);  // after the span: no longer a return
  EXPECT_DOUBLE_EQ(recurring.share(), 0.71);
  for (uint64_t block = 100; block < 130; ++block) {
    recurring.record_admission(block, 5000);
    recurring.observe(block, 5001, true);
  }
  EXPECT_DOUBLE_EQ(recurring.share(), 1.0);  // the ceiling
  EXPECT_EQ(recurring.sampled_hits(), 31u);
  EXPECT_EQ(recurring.sampled_wasted(), 1u);
}

}  // namespace
}  // namespace tiercache
