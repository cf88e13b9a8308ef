#include "policy/replacement/clock_policy.h"

#include <gtest/gtest.h>

#include <vector>

namespace tiercache {
namespace {

const auto kAny = [](uint32_t) { return true; };

TEST(ClockPolicyTest, EvictionSequence) {
  ClockPolicy p(4);
  for (uint32_t s = 0; s < 4; ++s) p.on_insert(s, 100 + s);
  p.on_hit(1);
  p.on_hit(2);
  EXPECT_EQ(p.pick_victim(kAny, 4), 0u);  // hand at 0, unreferenced
  EXPECT_EQ(p.pick_victim(kAny, 4), 0u);  // not evicted: proposed again
  p.on_evict(0, 100);                     // hand moves to 1
  p.on_insert(0, 200);                    // behind the hand
  // 1 and 2 lose their bits, 3 is proposed.
  EXPECT_EQ(p.pick_victim(kAny, 4), 3u);
  p.on_evict(3, 103);  // hand wraps to 0
  EXPECT_EQ(p.hand(), 0u);
  p.on_insert(3, 203);
  EXPECT_EQ(p.pick_victim(kAny, 4), 0u);
  EXPECT_EQ(p.pick_victim([](uint32_t s) { return s != 0; }, 4), 1u);  // 0 refused, 1 next
}

TEST(ClockPolicyTest, RefusalAndMaxScan) {
  ClockPolicy p(4);
  for (uint32_t s = 0; s < 4; ++s) p.on_insert(s, 100 + s);
  p.on_hit(2);
  // 0 and 1 refused: 2 tries; the bit of 2 is not reached.
  EXPECT_EQ(p.pick_victim([](uint32_t s) { return s >= 2; }, 2), std::nullopt);
  EXPECT_EQ(p.hand(), 2u);
  // Everything refused: 2 loses its bit (not a try), then 3, 0, 1, 2 are tried once each.
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
  EXPECT_EQ(p.pick_victim([](uint32_t s) { return s != 1; }, 4), 3u);  // 2 is skipped, free
  p.on_insert(2, 202);
  p.on_evict(3, 103);
  EXPECT_EQ(p.pick_victim(kAny, 4), 1u);  // from 0 (after 3): 0 free, 1
}

TEST(ClockPolicyTest, CapacityOneAndTwo) {
  ClockPolicy one(1);
  EXPECT_EQ(one.pick_victim(kAny, 1), std::nullopt);
  one.on_insert(0, 7);
  one.on_hit(0);
  EXPECT_EQ(one.pick_victim(kAny, 1), 0u);  // bit cleared, then proposed
  one.on_evict(0, 7);
  EXPECT_EQ(one.pick_victim(kAny, 1), std::nullopt);

  ClockPolicy two(2);
  two.on_insert(1, 11);
  EXPECT_EQ(two.pick_victim(kAny, 1), 1u);  // 0 is free
  two.on_insert(0, 10);
  two.on_hit(1);
  EXPECT_EQ(two.pick_victim(kAny, 1), 0u);  // 1 loses its bit, wrap to 0
  EXPECT_EQ(two.memory_size(), 16u);        // two one-word bitmaps
}

}  // namespace
}  // namespace tiercache
