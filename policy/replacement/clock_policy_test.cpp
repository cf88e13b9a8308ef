#include "policy/replacement/clock_policy.h"

#include <gtest/gtest.h>

#include <vector>

namespace tiercache {
namespace {

const auto kAny = [](uint32_t) { return true; };

TEST(ClockPolicyTest, EvictionSequence) {
  ClockPolicy p(4);
  for (uint32_t s = 0; s < 4; ++s) p.on_insert(s, 100 + s);
  EXPECT_EQ(p.spared_passes(0), 1u);  // new: spared one pass
  p.on_hit(1);
  p.on_hit(2);
  EXPECT_EQ(p.spared_passes(1), 2u);  // hit: two
  // First turn: 0 and 3 to 0 passes, 1 and 2 to 1; second turn: 0 is the first with none left.
  EXPECT_EQ(p.pick_victim(kAny, 4), 0u);
  EXPECT_EQ(p.spared_passes(3), 0u);
  EXPECT_EQ(p.pick_victim(kAny, 4), 0u);  // not evicted: proposed again
  p.on_evict(0, 100);                     // hand moves to 1
  EXPECT_EQ(p.spared_passes(0), std::nullopt);
  p.on_insert(0, 200);  // behind the hand
  // 1 and 2 are spared a last time, 3 is proposed.
  EXPECT_EQ(p.pick_victim(kAny, 4), 3u);
  p.on_evict(3, 103);  // hand wraps to 0
  EXPECT_EQ(p.hand(), 0u);
  p.on_insert(3, 203);
  EXPECT_EQ(p.pick_victim(kAny, 4), 1u);  // 0 is spared its one pass
  EXPECT_EQ(p.pick_victim([](uint32_t s) { return s != 1; }, 4), 2u);  // 1 refused, 2 next
}

// Where one reference bit loses the order, the passes keep it: 1 was hit before 0 was inserted,
// and goes first, as in LRU. With one bit, the hand clears 1's bit on its first turn, and the
// next turn finds 0 unreferenced before it comes back to 1: 0, 2, 3, 0.
TEST(ClockPolicyTest, FollowsRecencyFinerThanOneBit) {
  ClockPolicy p(4);
  for (uint32_t s = 0; s < 4; ++s) p.on_insert(s, 100 + s);
  p.on_hit(1);
  std::vector<uint32_t> evicted;
  for (int i = 0; i < 4; ++i) {
    const auto victim = p.pick_victim(kAny, 4);
    ASSERT_TRUE(victim.has_value());
    evicted.push_back(*victim);
    p.on_evict(*victim, 100 + *victim);
    p.on_insert(*victim, 200 + *victim);
  }
  EXPECT_EQ(evicted, (std::vector<uint32_t>{0, 2, 3, 1}));
}

TEST(ClockPolicyTest, RefusalAndMaxScan) {
  ClockPolicy p(4);
  for (uint32_t s = 0; s < 4; ++s) p.on_insert(s, 100 + s);
  p.on_hit(2);
  // The first turn spares every block (2 twice); then 0 and 1 are refused: 2 tries.
  EXPECT_EQ(p.pick_victim([](uint32_t s) { return s >= 2; }, 2), std::nullopt);
  EXPECT_EQ(p.hand(), 2u);
  // Everything refused: 2 is spared its last pass (not a try), then 3, 0, 1, 2 are tried once
  // each.
  std::vector<uint32_t> tried;
  EXPECT_EQ(p.pick_victim(
                [&](uint32_t s) {
                  tried.push_back(s);
                  return false;
                },
                100),
            std::nullopt);
  EXPECT_EQ(tried, (std::vector<uint32_t>{3, 0, 1, 2}));
  EXPECT_EQ(p.pick_victim(kAny, 1), 3u);  // nothing lost; the hand continued from 3
}

TEST(ClockPolicyTest, RemoveUnderAndAwayFromTheHand) {
  ClockPolicy p(4);
  for (uint32_t s = 0; s < 4; ++s) p.on_insert(s, 100 + s);
  p.on_remove(0);  // under the hand: moves to 1
  p.on_remove(2);
  p.on_remove(2);  // twice is harmless
  p.on_hit(2);     // free slot: ignored
  EXPECT_EQ(p.hand(), 1u);
  // 1 and 3 are spared a pass, 2 and 0 are skipped (free), 1 is refused.
  EXPECT_EQ(p.pick_victim([](uint32_t s) { return s != 1; }, 4), 3u);
  p.on_insert(2, 202);
  p.on_evict(3, 103);
  EXPECT_EQ(p.pick_victim(kAny, 4), 1u);  // from 0 (after 3): 0 free, 1
}

TEST(ClockPolicyTest, CapacityOneAndTwo) {
  ClockPolicy one(1);
  EXPECT_EQ(one.pick_victim(kAny, 1), std::nullopt);
  one.on_insert(0, 7);
  one.on_hit(0);
  EXPECT_EQ(one.pick_victim(kAny, 1), 0u);  // spared twice, then proposed
  one.on_evict(0, 7);
  EXPECT_EQ(one.pick_victim(kAny, 1), std::nullopt);

  ClockPolicy two(2);
  two.on_insert(1, 11);
  EXPECT_EQ(two.pick_victim(kAny, 1), 1u);  // 0 is free, 1 spared once
  two.on_insert(0, 10);
  two.on_hit(1);
  EXPECT_EQ(two.pick_victim(kAny, 1), 0u);  // 1 spared, 0 spared, 1 spared, wrap to 0
  EXPECT_EQ(two.memory_size(), 16u);        // two one-word bitmaps: 2 bits per slot
}

}  // namespace
}  // namespace tiercache
