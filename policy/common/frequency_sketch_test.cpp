#include "policy/common/frequency_sketch.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

namespace tiercache {
namespace {

TEST(FrequencySketchTest, SizesFollowCapacity) {
  EXPECT_EQ(FrequencySketch(1).width(), 16u);
  EXPECT_EQ(FrequencySketch(1).memory_size(), 4u * 8u);
  FrequencySketch s1000(1000);
  EXPECT_EQ(s1000.width(), 256u);  // bit_floor(1000) / 2
  EXPECT_EQ(s1000.memory_size(), 4u * 256u / 2u);
  EXPECT_EQ(s1000.sample_size(), 10000u);
  FrequencySketch big(1u << 20, 0, /*doorkeeper=*/true);
  EXPECT_EQ(big.memory_size(), (1u << 20) + (1u << 18));  // 1 byte per slot + 1/4 doorkeeper
}

TEST(FrequencySketchTest, EstimatesNeverBelowTrueCountUnderCollisions) {
  // 3000 keys in 4 rows of 64 counters: every counter is shared by dozens of keys.
  FrequencySketch sketch(128, /*sample_size=*/1u << 30);
  std::map<uint64_t, uint32_t> truth;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    uint64_t key = rng() % 3000;
    sketch.increment(key);
    ++truth[key];
  }
  EXPECT_EQ(sketch.agings(), 0u);
  for (auto [key, count] : truth) {
    ASSERT_GE(sketch.estimate(key), std::min(count, FrequencySketch::kMaxCount)) << key;
  }
}

TEST(FrequencySketchTest, SparseSketchCountsExactlyAndSaturates) {
  FrequencySketch sketch(4096, 1u << 30);
  for (uint64_t key = 1; key <= 40; ++key) {
    for (uint64_t n = 0; n < key % 7; ++n) sketch.increment(key);
  }
  for (uint64_t key = 1; key <= 40; ++key) EXPECT_EQ(sketch.estimate(key), key % 7) << key;
  EXPECT_EQ(sketch.estimate(1000), 0u);
  uint64_t before = sketch.additions();
  for (int i = 0; i < 20; ++i) sketch.increment(99);
  EXPECT_EQ(sketch.estimate(99), 15u);
  EXPECT_EQ(sketch.additions(), before + 15);  // increments of a saturated key do not count
}

TEST(FrequencySketchTest, AgingHalvesEveryCounterExactly) {
  FrequencySketch sketch(4096, /*sample_size=*/30);
  for (int i = 0; i < 7; ++i) sketch.increment(1);
  for (int i = 0; i < 4; ++i) sketch.increment(2);
  for (int i = 0; i < 15; ++i) sketch.increment(3);
  sketch.increment(4);
  EXPECT_EQ(sketch.additions(), 27u);
  sketch.age();
  EXPECT_EQ(sketch.agings(), 1u);
  EXPECT_EQ(sketch.additions(), 13u);
  EXPECT_EQ(sketch.estimate(1), 3u);
  EXPECT_EQ(sketch.estimate(2), 2u);
  EXPECT_EQ(sketch.estimate(3), 7u);
  EXPECT_EQ(sketch.estimate(4), 0u);
  // 17 more additions reach sample_size 30 and age again on their own.
  for (int i = 0; i < 10; ++i) sketch.increment(5);
  for (int i = 0; i < 6; ++i) sketch.increment(6);
  EXPECT_EQ(sketch.agings(), 1u);
  sketch.increment(6);
  EXPECT_EQ(sketch.agings(), 2u);
  EXPECT_EQ(sketch.additions(), 15u);
  EXPECT_EQ(sketch.estimate(5), 5u);
  EXPECT_EQ(sketch.estimate(6), 3u);
  EXPECT_EQ(sketch.estimate(3), 3u);
  EXPECT_EQ(sketch.estimate(1), 1u);
  EXPECT_EQ(sketch.estimate(2), 1u);
}

TEST(FrequencySketchTest, DoorkeeperTakesFirstOccurrenceAndIsClearedByAging) {
  FrequencySketch sketch(4096, 1u << 30, /*doorkeeper=*/true);
  sketch.increment(10);
  EXPECT_EQ(sketch.estimate(10), 1u);
  EXPECT_EQ(sketch.estimate(11), 0u);
  sketch.increment(10);
  sketch.increment(10);
  EXPECT_EQ(sketch.estimate(10), 3u);
  EXPECT_EQ(sketch.additions(), 3u);
  sketch.age();
  EXPECT_EQ(sketch.estimate(10), 1u);  // counters 2 -> 1, doorkeeper bit gone
  sketch.increment(10);                // lands in the doorkeeper again
  EXPECT_EQ(sketch.estimate(10), 2u);
}

}  // namespace
}  // namespace tiercache
