#include "policy/admission/new_block_surge.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
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
  NewBlockSurge::Params rates_alone;
  rates_alone.evidence = 0;  // the evidence pools too: ABoardPoolsTheEvidenceOfItsShards
  for (const uint32_t shards : {2u, 16u}) {
    SurgeBoard board(shards);
    std::vector<NewBlockSurge> surges;
    for (uint32_t i = 0; i < shards; ++i) {
      surges.emplace_back(kLarge, rates_alone, SurgeSlot{&board, i});
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

// One access of a pattern of five where the first `fresh` are misses of new blocks; then judges.
bool Step(NewBlockSurge& surge, uint64_t& next_block, int& position, int fresh) {
  surge.on_access();
  if (position < fresh) {
    surge.on_new_block(next_block);
    next_block += 7;
  }
  position = (position + 1) % 5;
  return surge.judge();
}

// Accesses (each judged) until a surge is seen, at most `limit`.
int AccessesUntilASurge(NewBlockSurge& surge, uint64_t& next_block, int fresh, int limit) {
  int position = 0;
  for (int n = 1; n <= limit; ++n) {
    if (Step(surge, next_block, position, fresh)) return n;
  }
  return -1;
}

// New blocks go from 1 in 5 to 3 in 5 accesses. The evidence grows by ln 2 at each new block
// and by ln(0.6 / 0.8) at each other access (the rate a surge needs being twice the slow 0.2):
// 1.50 every five accesses, so 12 is reached at the 38th (7 x 1.50 + 2 ln 2 = 11.9). The fast
// rate (~128 accesses) needs ~95 to reach twice the slow one: 0.2 + 0.4 (1 - e^-k/128) >= 0.41.
TEST(NewBlockSurgeTest, EvidenceSeesAJumpBeforeTheRatesDo) {
  constexpr uint32_t kLarge = 4096;
  NewBlockSurge::Params rates_alone;
  rates_alone.evidence = 0;
  NewBlockSurge with_evidence(kLarge, {}), without(kLarge, rates_alone);
  uint64_t a = 0, b = 1u << 30;
  Feed(with_evidence, a, 4 * kLarge - 4, 5);  // ends after four old blocks: no evidence left
  Feed(without, b, 4 * kLarge - 4, 5);
  EXPECT_NEAR(with_evidence.slow_rate(), 0.2, 0.001);
  EXPECT_EQ(with_evidence.evidence(), 0.0);
  EXPECT_FALSE(with_evidence.judge());
  EXPECT_EQ(AccessesUntilASurge(with_evidence, a, 3, 1000), 38);
  EXPECT_FALSE(without.judge());
  EXPECT_EQ(AccessesUntilASurge(without, b, 3, 1000), 98);
}

// Back at the usual rate the evidence falls by 0.46 every five accesses (ln 2 + 4 ln 0.75) and
// the surge ends when it is under half the threshold (~70 accesses), as the fast rate never
// reached 1.5 times the slow one; the next one needs the whole threshold again. At a steady
// random rate (independent accesses, 0.2 new) the evidence starts one false surge in 64
// capacities (e^-12 per access is one in 163,000), the rates alone none.
TEST(NewBlockSurgeTest, EvidenceEndsWithTheJumpAndIgnoresChance) {
  constexpr uint32_t kLarge = 4096;
  NewBlockSurge surge(kLarge, {});
  uint64_t block = 0;
  Feed(surge, block, 4 * kLarge - 4, 5);
  ASSERT_FALSE(surge.judge());  // scores the accesses fed so far: no evidence
  ASSERT_EQ(surge.evidence(), 0.0);
  ASSERT_EQ(AccessesUntilASurge(surge, block, 3, 1000), 38);
  const double peak = surge.evidence();
  // 7 x 1.504 + 3 ln 2 = 12.61, a little less as the slow rate rises with the jump
  EXPECT_GT(peak, 12.5);
  EXPECT_LT(peak, 12.61);
  int position = 0, surging = 0;
  while (Step(surge, block, position, 1)) ++surging;
  EXPECT_EQ(surging, 68);
  EXPECT_EQ(surge.evidence(), 0.0);  // what was left goes with the surge

  for (const double threshold : {12.0, 0.0}) {
    NewBlockSurge::Params params;
    params.evidence = threshold;
    NewBlockSurge steady(kLarge, params);
    std::mt19937_64 rng(1);
    std::bernoulli_distribution fresh(0.2);
    int starts = 0;
    bool was = false;
    for (uint32_t i = 0; i < 64 * kLarge; ++i) {
      steady.on_access();
      if (fresh(rng)) steady.on_new_block(block += 7);
      const bool now = steady.judge();
      starts += now && !was;
      was = now;
    }
    EXPECT_EQ(starts, threshold > 0 ? 1 : 0) << threshold;
  }
}

// New blocks in clusters (20 scattered new blocks, then 80 accesses of old ones: a loop or a
// file) at a steady 0.2 per access: 20 ln 2 = 13.9 of evidence per cluster for independent
// accesses, over the threshold, but clustered counts vary ~13 times as much as independent
// ones, so the evidence stays far under it and no surge starts.
TEST(NewBlockSurgeTest, ClusteredNewBlocksAreWeakerEvidence) {
  constexpr uint32_t kLarge = 4096;
  NewBlockSurge surge(kLarge, {});
  uint64_t block = 0;
  auto cluster = [&](bool judged, int& starts, double& peak) {
    for (int i = 0; i < 100; ++i) {
      surge.on_access();
      if (i < 20) surge.on_new_block(block += 7);
      if (!judged) continue;
      const bool was = surge.surging();
      starts += surge.judge() && !was;
      peak = std::max(peak, surge.evidence());
    }
  };
  int starts = 0;
  double peak = 0;
  for (uint32_t i = 0; i < 4 * kLarge / 100; ++i) cluster(false, starts, peak);
  for (uint32_t i = 0; i < 64 * kLarge / 100; ++i) cluster(true, starts, peak);
  EXPECT_NEAR(surge.slow_rate(), 0.2, 0.02);
  EXPECT_EQ(starts, 0);
  EXPECT_LT(peak, 2.0);
}

// Shards on a board add their accesses' evidence to the cache's: two shards in step see the jump
// 18 accesses into each (36 in all, 24 of them new: 24 ln 2 + 12 ln 0.75 = 13.2), where one
// shard judging alone on its own accesses needs 38.
TEST(NewBlockSurgeTest, ABoardPoolsTheEvidenceOfItsShards) {
  constexpr uint32_t kLarge = 4096;
  SurgeBoard board(2);
  NewBlockSurge::Params params;
  NewBlockSurge first(kLarge, params, SurgeSlot{&board, 0});
  NewBlockSurge second(kLarge, params, SurgeSlot{&board, 1});
  NewBlockSurge alone(kLarge, params);
  uint64_t a = 0, b = 1u << 30, c = 2u << 30;
  Feed(first, a, 4 * kLarge - 4, 5);
  Feed(second, b, 4 * kLarge - 4, 5);
  Feed(alone, c, 4 * kLarge - 4, 5);
  for (NewBlockSurge* surge : {&first, &second, &alone}) ASSERT_FALSE(surge->judge());
  ASSERT_EQ(board.evidence(), 0.0);
  int first_position = 0, second_position = 0, accesses = 0;
  bool seen = false;
  while (!seen && accesses < 1000) {
    seen = Step(first, a, first_position, 3) || Step(second, b, second_position, 3);
    ++accesses;
  }
  EXPECT_EQ(accesses, 18);
  EXPECT_TRUE(second.surging());
  EXPECT_EQ(AccessesUntilASurge(alone, c, 3, 1000), 38);
}

}  // namespace
}  // namespace tiercache
