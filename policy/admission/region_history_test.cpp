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

// Regions 0-7 fill the one bucket; region 8, read once, takes the entry of the newest region
// read once (7), so the older ones are still there when they come back.
TEST(RegionHistoryTest, AFullBucketGivesUpItsNewestOneTimeRegion) {
  RegionHistory history(8, kSpan);  // one bucket of 8
  for (uint64_t region = 0; region < 9; ++region) history.touch(region * 16, region * 100);
  EXPECT_TRUE(history.touch(0, 900));  // region 0, the oldest, is remembered
  // Region 8 took region 7's entry; region 7 takes region 8's, and so on: new regions read once
  // share one entry.
  EXPECT_FALSE(history.touch(7 * 16, 901));
  EXPECT_FALSE(history.touch(8 * 16, 902));
  EXPECT_TRUE(history.touch(16, 903));  // region 1 is still there
}

// Once every region of the bucket has recurred, the least recently accessed one goes.
TEST(RegionHistoryTest, RegionsThatRecurredGoLastOldestFirst) {
  RegionHistory history(8, kSpan);
  for (uint64_t region = 0; region < 8; ++region) history.touch(region * 16, region * 10);
  for (uint64_t region = 0; region < 8; ++region) {
    EXPECT_TRUE(history.touch(region * 16, 100 + region * 100));  // each recurs, 0 oldest
  }
  EXPECT_FALSE(history.touch(8 * 16, 900));  // takes region 0's entry
  EXPECT_FALSE(history.touch(0, 901));       // forgotten; takes region 8's (read once)
  EXPECT_TRUE(history.touch(16, 902));
  EXPECT_FALSE(history.touch(8 * 16, 903));
}

}  // namespace
}  // namespace tiercache
