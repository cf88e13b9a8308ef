#include "policy/admission/region_history.h"

#include <gtest/gtest.h>

namespace tiercache {
namespace {

// span 2400 accesses: epochs of 100; a region is remembered 24 epochs after its last access.
constexpr uint64_t kSpan = 2400;

TEST(RegionHistoryTest, RemembersEachBlockOfARegion) {
  RegionHistory history(1024, kSpan);
  EXPECT_FALSE(history.touch(32, 1));  // first access
  EXPECT_TRUE(history.touch(32, 2));
  EXPECT_FALSE(history.touch(33, 3));  // same region, another block: not accessed yet
  EXPECT_TRUE(history.touch(33, 4));
  EXPECT_FALSE(history.touch(48, 5));  // the next region
  EXPECT_TRUE(history.touch(32, 6));
  EXPECT_EQ(history.entries(), 1024u);
  EXPECT_EQ(history.memory_size(), 4096u);
}

TEST(RegionHistoryTest, ForgetsARegionASpanAfterItsLastAccess) {
  RegionHistory history(1024, kSpan);
  history.touch(7, 0);
  EXPECT_TRUE(history.touch(7, 2499));   // epoch 24: 24 epochs old, remembered (and refreshed)
  EXPECT_FALSE(history.touch(7, 4999));  // epoch 49: 25 epochs after 2499
}

// Stamps wrap every 32 epochs; the sweep clears a region before its stamp can look young again.
TEST(RegionHistoryTest, TheSweepClearsRegionsBeforeTheirStampsWrap) {
  RegionHistory history(1024, kSpan);
  history.touch(7, 0);
  for (uint64_t now = 1; now < 3400; ++now) history.touch(1600, now);
  EXPECT_FALSE(history.touch(7, 3400));  // 34 epochs: would read as 2 without the sweep
}

TEST(RegionHistoryTest, AFullBucketForgetsItsLeastRecentRegion) {
  RegionHistory history(8, kSpan);  // one bucket of 8
  for (uint64_t region = 0; region < 9; ++region) history.touch(region * 16, region * 100);
  EXPECT_FALSE(history.touch(0, 900));  // region 0 was the oldest: forgotten
  EXPECT_TRUE(history.touch(32, 901));  // region 2 is still there
  EXPECT_FALSE(history.touch(16, 902));  // region 1 made room for region 0 again
}

}  // namespace
}  // namespace tiercache
