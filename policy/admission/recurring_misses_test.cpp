#include "policy/admission/recurring_misses.h"

#include <gtest/gtest.h>

namespace tiercache {
namespace {

// Every block followed; span 8 capacities = 2048 accesses, statistics halved every 4096;
// AdaptiveAdmission's default floor (0.2) and eviction prior (0.25).
constexpr uint32_t kCapacity = 256;

RecurringMisses Make() {
  return RecurringMisses(kCapacity, 0, RecurringMisses::Params{}, 0.2, 0.25);
}

TEST(RecurringMissesTest, TellsWhetherABlockWasAccessedWithinTheSpan) {
  RecurringMisses recurring = Make();
  EXPECT_FALSE(recurring.observe(5, 1, false));
  EXPECT_TRUE(recurring.observe(5, 2, true));
  EXPECT_FALSE(recurring.observe(6, 3, false));
}

TEST(RecurringMissesTest, ThePriorAdmitsUntilThereIsEvidence) {
  RecurringMisses recurring = Make();
  EXPECT_DOUBLE_EQ(recurring.return_ratio(), 0.5);
  EXPECT_DOUBLE_EQ(recurring.eviction_ratio(), 0.25);
  EXPECT_TRUE(recurring.admitted());  // 0.5 >= max(0.2, 0.25 + 0.15)
  recurring.record_miss(7, 1, false);
  EXPECT_DOUBLE_EQ(recurring.return_ratio(), 0.5);  // a pending miss weighs nothing
}

// The cache admits on every access: turnover 256 accesses, so a return counts within 128.
TEST(RecurringMissesTest, OnlyReturnsWithinHalfTheTurnoverCount) {
  RecurringMisses recurring = Make();
  recurring.record_miss(5, 0, true);
  recurring.record_miss(6, 0, true);
  for (uint64_t now = 1; now <= 400; ++now) {
    const uint64_t block = now == 100 ? 5 : now == 300 ? 6 : 100000 + 16 * now;
    recurring.observe(block, now, false);
    recurring.count_admission();
  }
  EXPECT_DOUBLE_EQ(recurring.turnover(), 256.0);
  EXPECT_DOUBLE_EQ(recurring.return_ratio(), (1 + 2) / (2 + 4.0));  // 5 back in time, 6 late
}

TEST(RecurringMissesTest, EvictedBlocksComingBackRaiseTheBar) {
  RecurringMisses recurring = Make();
  for (uint64_t block = 10; block < 20; ++block) recurring.on_evict(block, 1);
  for (uint64_t block = 10; block < 20; ++block) recurring.observe(block, block - 8, false);
  EXPECT_DOUBLE_EQ(recurring.eviction_ratio(), (10 + 1) / (10 + 4.0));
  EXPECT_FALSE(recurring.admitted());  // 0.5 < 0.79 + 0.15
}

}  // namespace
}  // namespace tiercache
