#include "policy/admission/new_block_surge.h"

#include <gtest/gtest.h>

namespace tiercache {
namespace {

// Capacity 256: the fast rate follows ~32 accesses, the slow one ~1024.
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
  EXPECT_FALSE(surge.surging());  // as many as ever: no surge
}

TEST(NewBlockSurgeTest, ASteadyRateIsNoSurgeAJumpIs) {
  NewBlockSurge surge(kCapacity, {});
  uint64_t block = 0;
  Feed(surge, block, 8192, 10);
  EXPECT_NEAR(surge.slow_rate(), 0.1, 0.01);
  EXPECT_FALSE(surge.surging());
  Feed(surge, block, 8, 1);  // fast: ~0.1 + 0.9 * (1 - e^-0.25) = 0.30 >= 0.2 and >= 2 * ~0.11
  EXPECT_GT(surge.fast_rate(), 0.28);
  EXPECT_LT(surge.slow_rate(), 0.12);
  EXPECT_TRUE(surge.surging());
  Feed(surge, block, 512, 10);  // back to the usual rate
  EXPECT_FALSE(surge.surging());
}

TEST(NewBlockSurgeTest, ARunOfAdjacentBlocksCountsOnce) {
  NewBlockSurge surge(kCapacity, {});
  uint64_t block = 0;
  Feed(surge, block, 8192, 10);
  const double before = surge.fast_rate();
  for (uint64_t b = 1000000; b < 1000064; ++b) {  // one stream of 64 blocks
    surge.on_access();
    surge.on_new_block(b);
  }
  EXPECT_LT(surge.fast_rate(), before);  // one new block in 64 accesses: below the usual 0.1
  EXPECT_FALSE(surge.surging());
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
  Feed(floored, a, 16, 1);  // fast ~0.41: four times the slow rate, under the floor
  Feed(disabled, b, 16, 1);
  EXPECT_GT(floored.fast_rate(), 0.35);
  EXPECT_FALSE(floored.surging());
  EXPECT_FALSE(disabled.surging());
}

TEST(NewBlockSurgeTest, RatesDecayToExactlyZero) {
  NewBlockSurge surge(kCapacity, {});
  uint64_t block = 0;
  Feed(surge, block, 64, 1);
  for (int i = 0; i < 200000; ++i) surge.on_access();  // no denormal left on the hit path
  EXPECT_EQ(surge.fast_rate(), 0.0);
  EXPECT_EQ(surge.slow_rate(), 0.0);
}

}  // namespace
}  // namespace tiercache
