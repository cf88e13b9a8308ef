#include "policy/admission/new_block_surge.h"

#include <gtest/gtest.h>

#include <vector>

namespace tiercache {
namespace {

// Capacity 256 with the defaults: the fast rate follows ~8 accesses, the slow one ~256.
constexpr uint32_t kCapacity = 256;

// `n` accesses, one in `every` a miss of a new block (scattered: never adjacent to the last).
void Feed(NewBlockSurge& surge, uint64_t& next_block, int n, int every) {
  for (int i = 0; i < n; ++i) {
    surge.on_access();
    if (i % every == 0) {
      surge.on_new_block(next_block);
      next_block += 7;
    }
  }
}

TEST(NewBlockSurgeTest, AYoungShardReadsItsRateNotZero) {
  NewBlockSurge surge(kCapacity, {});
  uint64_t block = 0;
  Feed(surge, block, 10, 1);  // every access a new block, from the first on
  EXPECT_NEAR(surge.fast_rate(), 1.0, 1e-12);
  EXPECT_NEAR(surge.slow_rate(), 1.0, 1e-12);
  EXPECT_FALSE(surge.judge());  // as many as ever: no surge
}

TEST(NewBlockSurgeTest, ASteadyRateIsNoSurgeAJumpIs) {
  NewBlockSurge surge(kCapacity, {});
  uint64_t block = 0;
  Feed(surge, block, 8192, 10);
  EXPECT_NEAR(surge.slow_rate(), 0.1, 0.01);
  EXPECT_FALSE(surge.judge());
  Feed(surge, block, 4, 1);  // fast: ~0.1 + 0.9 * (1 - (7/8)^4) = 0.47 >= 0.2 and >= 2 * ~0.11
  EXPECT_GT(surge.fast_rate(), 0.4);
  EXPECT_LT(surge.slow_rate(), 0.12);
  EXPECT_TRUE(surge.judge());
  EXPECT_TRUE(surge.surging());
  Feed(surge, block, 512, 10);  // back to the usual rate
  EXPECT_FALSE(surge.judge());
  EXPECT_FALSE(surge.surging());
}

// Once begun, a surge lasts while the fast rate is at least end_ratio times the slow one: the
// same rate that does not start a surge keeps one going.
TEST(NewBlockSurgeTest, ASurgeLastsWhileTheFastRateStaysAboveEndRatio) {
  NewBlockSurge::Params p;
  p.ratio = 3;
  p.floor = 0.1;
  p.end_ratio = 1.5;
  constexpr uint32_t kLarge = 4096;  // fast ~128 accesses, slow ~4096: smooth rates
  NewBlockSurge surging(kLarge, p), calm(kLarge, p);
  uint64_t a = 0, b = 1u << 30;
  Feed(surging, a, 4 * kLarge, 10);
  Feed(calm, b, 4 * kLarge, 10);
  EXPECT_FALSE(surging.judge());
  EXPECT_FALSE(calm.judge());
  Feed(surging, a, 64, 1);  // fast ~0.1 + 0.9 * (1 - e^-0.5) = 0.45: over 3 * ~0.11
  EXPECT_TRUE(surging.judge());
  Feed(surging, a, 512, 5);  // both at 0.2 new blocks per access, ~1.8 times their slow rates
  Feed(calm, b, 512, 5);
  const SurgeBoard::Rates r = calm.rates();
  EXPECT_GT(r.fast, 1.5 * r.slow);
  EXPECT_LT(r.fast, 3 * r.slow);
  EXPECT_TRUE(surging.judge());
  EXPECT_FALSE(calm.judge());
  Feed(surging, a, 1024, 10);  // back to 0.1: the surge ends
  EXPECT_FALSE(surging.judge());
}

TEST(NewBlockSurgeTest, ARunOfAdjacentBlocksCountsOnce) {
  NewBlockSurge surge(kCapacity, {});
  uint64_t block = 0;
  Feed(surge, block, 8192, 10);
  for (uint64_t b = 1000000; b < 1000064; ++b) {  // one stream of 64 blocks
    surge.on_access();
    surge.on_new_block(b);
  }
  EXPECT_LT(surge.fast_rate(), 0.01);  // one new block in 64 accesses: under the usual 0.1
  EXPECT_FALSE(surge.judge());
}

TEST(NewBlockSurgeTest, FloorAndRatioZero) {
  NewBlockSurge::Params low;
  low.floor = 0.5;
  NewBlockSurge::Params off;
  off.ratio = 0;
  NewBlockSurge floored(kCapacity, low), disabled(kCapacity, off);
  uint64_t a = 0, b = 0;
  Feed(floored, a, 8192, 20);  // 0.05
  Feed(disabled, b, 8192, 20);
  Feed(floored, a, 3, 1);  // fast ~0.05 + 0.95 * (1 - (7/8)^3) = 0.41: 8 times the slow rate
  Feed(disabled, b, 3, 1);
  EXPECT_GT(floored.fast_rate(), 0.35);
  EXPECT_FALSE(floored.judge());
  EXPECT_FALSE(disabled.judge());
}

TEST(NewBlockSurgeTest, RatesDecayToExactlyZero) {
  NewBlockSurge surge(kCapacity, {});
  uint64_t block = 0;
  Feed(surge, block, 64, 1);
  for (int i = 0; i < 200000; ++i) surge.on_access();  // no denormal left on the hit path
  EXPECT_EQ(surge.fast_rate(), 0.0);
  EXPECT_EQ(surge.slow_rate(), 0.0);
}

// With a board, each shard publishes its rates and judges the mean of all of them: a surge the
// whole cache shows reaches a shard whose own share does not (yet), and one shard's burst alone
// is not the cache's.
TEST(NewBlockSurgeTest, ABoardJudgesTheMeanOfItsShards) {
  constexpr uint32_t kLarge = 4096;
  for (const uint32_t shards : {2u, 16u}) {
    SurgeBoard board(shards);
    std::vector<NewBlockSurge> surges;
    for (uint32_t i = 0; i < shards; ++i) {
      surges.emplace_back(kLarge, NewBlockSurge::Params{}, SurgeSlot{&board, i});
    }
    std::vector<uint64_t> next(shards);
    for (uint32_t i = 0; i < shards; ++i) next[i] = uint64_t{i} << 32;
    for (uint32_t i = 0; i < shards; ++i) Feed(surges[i], next[i], 4 * kLarge, 10);
    EXPECT_FALSE(surges[0].judge());
    // Shard 1's new blocks jump to one per access; shard 0 goes on as before.
    Feed(surges[1], next[1], 128, 1);  // its fast rate: 0.1 + 0.9 * (1 - e^-1) = 0.67
    Feed(surges[0], next[0], 128, 10);
    EXPECT_GT(surges[1].fast_rate(), 0.6);
    EXPECT_LT(surges[0].fast_rate(), 0.12);
    EXPECT_NEAR(surges[0].rates().fast, (surges[1].fast_rate() + 0.1 * (shards - 1)) / shards,
                0.01);
    // 2 shards: (0.67 + 0.1) / 2 = 0.39 against ~0.11; 16: (0.67 + 15 * 0.1) / 16 = 0.14, under
    // the floor.
    EXPECT_EQ(surges[0].judge(), shards == 2) << shards;
    EXPECT_EQ(surges[1].judge(), shards == 2) << shards;
  }
}

}  // namespace
}  // namespace tiercache
