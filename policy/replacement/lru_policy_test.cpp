#include "policy/replacement/lru_policy.h"

#include <gtest/gtest.h>

namespace tiercache {
namespace {

TEST(LruPolicyTest, EvictsLeastRecentlyUsedThatQualifies) {
  LruPolicy lru(4);
  for (uint32_t slot : {0, 1, 2, 3}) lru.on_insert(slot, 100 + slot);
  lru.on_hit(0);  // order, most recent first: 0 3 2 1
  auto any = [](uint32_t) { return true; };
  EXPECT_EQ(lru.pick_victim(any, 10), 1u);
  EXPECT_EQ(lru.pick_victim([](uint32_t s) { return s != 1; }, 10), 2u);
  EXPECT_EQ(lru.pick_victim([](uint32_t s) { return s == 0; }, 3), std::nullopt);
  EXPECT_EQ(lru.pick_victim([](uint32_t s) { return s == 0; }, 4), 0u);
  lru.on_evict(1, 101);
  EXPECT_EQ(lru.pick_victim(any, 10), 2u);
  lru.on_hit(1);  // not linked: ignored
  EXPECT_EQ(lru.pick_victim(any, 10), 2u);
  lru.on_remove(2);
  lru.on_remove(2);  // twice is harmless
  EXPECT_EQ(lru.pick_victim(any, 10), 3u);
  EXPECT_EQ(lru.memory_size(), 4u * 8u);
}

TEST(LruPolicyTest, SingleSlotLinksAndUnlinks) {
  LruPolicy lru(1);
  auto any = [](uint32_t) { return true; };
  EXPECT_EQ(lru.pick_victim(any, 1), std::nullopt);
  lru.on_insert(0, 7);
  lru.on_hit(0);
  EXPECT_EQ(lru.pick_victim(any, 1), 0u);
  lru.on_evict(0, 7);
  EXPECT_EQ(lru.pick_victim(any, 1), std::nullopt);
  lru.on_insert(0, 8);
  EXPECT_EQ(lru.pick_victim(any, 1), 0u);
}

}  // namespace
}  // namespace tiercache
