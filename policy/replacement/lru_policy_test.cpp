#include "policy/replacement/lru_policy.h"

#include <gtest/gtest.h>

namespace tiercache {
namespace {

TEST(LruPolicyTest, EvictsLeastRecentlyUsedThatQualifies) {
  LruPolicy lru({1, 3, 5, 7});  // a shard with stride 2
  for (uint32_t id : {1, 3, 5, 7}) lru.on_insert(id);
  lru.on_access(1);  // order, most recent first: 1 7 5 3
  auto any = [](uint32_t) { return true; };
  EXPECT_EQ(lru.pick_victim(any, 10), 3u);
  EXPECT_EQ(lru.pick_victim([](uint32_t id) { return id != 3; }, 10), 5u);
  EXPECT_EQ(lru.pick_victim([](uint32_t id) { return id == 1; }, 3), std::nullopt);
  EXPECT_EQ(lru.pick_victim([](uint32_t id) { return id == 1; }, 4), 1u);
  lru.on_remove(3);
  EXPECT_EQ(lru.pick_victim(any, 10), 5u);
  lru.on_access(3);  // not linked: ignored
  EXPECT_EQ(lru.pick_victim(any, 10), 5u);
}

}  // namespace
}  // namespace tiercache
