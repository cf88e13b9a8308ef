#include "policy/replacement/sieve_policy.h"

#include <gtest/gtest.h>

#include <vector>

namespace tiercache {
namespace {

const auto kAny = [](uint32_t) { return true; };

// Lists below run from the tail (oldest) to the head (newest); * marks visited.
TEST(SievePolicyTest, EvictionSequence) {
  SievePolicy p(4);
  for (uint32_t s = 0; s < 4; ++s) p.on_insert(s, 100 + s);
  p.on_hit(0);
  p.on_hit(2);                            // 0* 1 2* 3
  EXPECT_EQ(p.pick_victim(kAny, 4), 1u);  // from the tail: 0 cleared, 1 proposed
  EXPECT_EQ(p.pick_victim(kAny, 4), 1u);  // not evicted: proposed again
  p.on_evict(1, 101);                     // hand to 2 (toward the head)
  p.on_insert(1, 201);                    // 0 2* 3 1
  EXPECT_EQ(p.pick_victim(kAny, 4), 3u);  // 2 cleared, 3 proposed
  p.on_evict(3, 103);                     // hand to 1
  p.on_insert(3, 203);                    // 0 2 1 3
  p.on_hit(1);
  p.on_hit(0);                            // 0* 2 1* 3
  EXPECT_EQ(p.pick_victim(kAny, 4), 3u);  // 1 cleared, 3 proposed
  p.on_evict(3, 203);                     // 3 was the head: hand wraps to the tail
  EXPECT_EQ(p.pick_victim(kAny, 4), 2u);  // 0 cleared, 2 proposed (0 kept its place)
}

TEST(SievePolicyTest, RefusalAndMaxScan) {
  SievePolicy p(4);
  for (uint32_t s = 0; s < 4; ++s) p.on_insert(s, 100 + s);
  p.on_hit(2);                                                                   // 0 1 2* 3
  EXPECT_EQ(p.pick_victim([](uint32_t s) { return s == 3; }, 2), std::nullopt);  // 0, 1 tried
  std::vector<uint32_t> tried;
  EXPECT_EQ(p.pick_victim(
                [&](uint32_t s) {
                  tried.push_back(s);
                  return false;
                },
                100),
            std::nullopt);
  EXPECT_EQ(tried, (std::vector<uint32_t>{3, 0, 1, 2}));  // from 2: cleared, then a full turn
  EXPECT_EQ(p.pick_victim([](uint32_t s) { return s != 3; }, 4), 0u);  // 3 refused, wrap
}

TEST(SievePolicyTest, RemoveAnywhere) {
  SievePolicy p(4);
  for (uint32_t s = 0; s < 4; ++s) p.on_insert(s, 100 + s);  // 0 1 2 3
  EXPECT_EQ(p.pick_victim(kAny, 4), 0u);
  p.on_remove(0);  // under the hand: hand to 1
  p.on_remove(2);  // middle
  p.on_remove(2);  // twice is harmless
  p.on_hit(2);     // unlinked: ignored
  p.on_hit(1);     // 1* 3
  EXPECT_EQ(p.pick_victim(kAny, 4), 3u);
  p.on_remove(3);  // head: hand wraps
  EXPECT_EQ(p.pick_victim(kAny, 4), 1u);
}

TEST(SievePolicyTest, CapacityOneAndTwo) {
  SievePolicy one(1);
  EXPECT_EQ(one.pick_victim(kAny, 1), std::nullopt);
  one.on_insert(0, 7);
  one.on_hit(0);
  EXPECT_EQ(one.pick_victim(kAny, 1), 0u);
  one.on_evict(0, 7);
  EXPECT_EQ(one.pick_victim(kAny, 1), std::nullopt);

  SievePolicy two(2);
  two.on_insert(1, 11);
  two.on_insert(0, 10);  // 1 0
  two.on_hit(1);
  EXPECT_EQ(two.pick_victim(kAny, 1), 0u);
  two.on_evict(0, 10);  // 0 was the head: wrap
  two.on_insert(0, 12);
  EXPECT_EQ(two.pick_victim(kAny, 1), 1u);  // its bit was cleared by the last pick
  EXPECT_EQ(two.memory_size(), 2u * 2u * 4u + 8u);
}

}  // namespace
}  // namespace tiercache
