#include "policy/admission/frequency_table.h"

#include <gtest/gtest.h>

namespace tiercache {
namespace {

TEST(FrequencyTableTest, SizesFollowEntries) {
  FrequencyTable table(1000, 100);  // 125 buckets rounded down to 64
  EXPECT_EQ(table.entries(), 64u * FrequencyTable::kWays);
  EXPECT_EQ(table.memory_size(), 64u * FrequencyTable::kWays * 2);
  EXPECT_EQ(FrequencyTable(0, 100).entries(), FrequencyTable::kWays);  // at least one bucket
}

TEST(FrequencyTableTest, CountsAndSaturates) {
  FrequencyTable table(4096, 1u << 30);
  EXPECT_EQ(table.increment(1), 1u);
  EXPECT_EQ(table.increment(1), 2u);
  EXPECT_EQ(table.increment(1), 3u);
  table.increment(2);
  EXPECT_EQ(table.estimate(1), 3u);
  EXPECT_EQ(table.estimate(2), 1u);
  EXPECT_EQ(table.estimate(3), 0u);
  for (int i = 0; i < 20; ++i) table.increment(1);
  EXPECT_EQ(table.estimate(1), FrequencyTable::kMaxCount);
}

TEST(FrequencyTableTest, NewKeyReplacesLeastCountedLeastRecent) {
  FrequencyTable table(FrequencyTable::kWays, 1u << 30);  // one bucket: every key competes
  for (uint64_t key = 1; key <= 8; ++key) table.increment(key);
  table.increment(1);  // 1 has count 2; among the count-1 keys, 2 is now the least recent
  table.increment(9);
  EXPECT_EQ(table.estimate(2), 0u);
  EXPECT_EQ(table.estimate(1), 2u);
  EXPECT_EQ(table.estimate(9), 1u);
  table.increment(3);   // 3 becomes the most recent; 4 is the next victim
  table.increment(10);
  EXPECT_EQ(table.estimate(4), 0u);
  EXPECT_EQ(table.estimate(3), 2u);
  for (uint64_t key : {5, 6, 7, 8, 9, 10}) EXPECT_EQ(table.estimate(key), 1u) << key;
}

TEST(FrequencyTableTest, OneTimeKeysDoNotInflateOthers) {
  FrequencyTable table(64, 1u << 30);
  for (int i = 0; i < 4; ++i) table.increment(7);
  for (uint64_t key = 1000; key < 3000; ++key) table.increment(key);  // a scan, 31 C long
  EXPECT_EQ(table.estimate(7), 4u);  // the scan churns through count-1 entries only
  EXPECT_EQ(table.estimate(5), 0u);
}

TEST(FrequencyTableTest, AgingHalvesCountsAndDropsSingles) {
  FrequencyTable table(FrequencyTable::kWays, /*sample_size=*/10);
  for (int i = 0; i < 5; ++i) table.increment(1);
  for (int i = 0; i < 3; ++i) table.increment(2);
  table.increment(3);
  EXPECT_EQ(table.agings(), 0u);
  EXPECT_EQ(table.increment(4), 0u);  // the 10th increment ages the table: 1 halves to 0
  EXPECT_EQ(table.agings(), 1u);
  EXPECT_EQ(table.estimate(1), 2u);
  EXPECT_EQ(table.estimate(2), 1u);
  EXPECT_EQ(table.estimate(3), 0u);
  EXPECT_EQ(table.estimate(4), 0u);
  // The emptied entries are reused first: new keys do not push 1 or 2 out.
  for (uint64_t key = 10; key < 14; ++key) table.increment(key);
  EXPECT_EQ(table.estimate(1), 2u);
  EXPECT_EQ(table.estimate(2), 1u);
  EXPECT_EQ(table.estimate(13), 1u);
  table.increment(14);  // 5 left after halving + 5 = 10: aged again
  EXPECT_EQ(table.agings(), 2u);
  EXPECT_EQ(table.estimate(1), 1u);
  EXPECT_EQ(table.estimate(2), 0u);
  EXPECT_EQ(table.estimate(14), 0u);
}

}  // namespace
}  // namespace tiercache
