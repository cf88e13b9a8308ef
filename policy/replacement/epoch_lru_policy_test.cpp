#include "policy/replacement/epoch_lru_policy.h"

#include <gtest/gtest.h>

#include <vector>

namespace tiercache {
namespace {

const auto kAny = [](uint32_t) { return true; };

// Evicts what pick_victim proposes and puts a new block into the same slot, `n` times.
std::vector<uint32_t> EvictAndRefill(EpochLruPolicy& p, int n) {
  std::vector<uint32_t> evicted;
  for (int i = 0; i < n; ++i) {
    const auto victim = p.pick_victim(kAny, 100);
    if (!victim) break;
    evicted.push_back(*victim);
    p.on_evict(*victim, 0);
    p.on_insert(*victim, 0);
  }
  return evicted;
}

// Capacity 20: an epoch is 2 insertions. Filling stamps slots 0-2 with epoch 0, then 3-4 with 1,
// 5-6 with 2 ... 19 with 9 (a new block is stamped one epoch before the newest, which the second
// insertion of each epoch starts), and the newest epoch is 10.
TEST(EpochLruPolicyTest, EvictsTheOldestEpochFirstInSlotOrder) {
  EpochLruPolicy p(20);
  for (uint32_t s = 0; s < 20; ++s) p.on_insert(s, 100 + s);
  EXPECT_EQ(p.epochs_held(), 11u);  // 0-10
  EXPECT_EQ(p.age(0), 10u);
  EXPECT_EQ(p.age(2), 10u);
  EXPECT_EQ(p.age(3), 9u);
  EXPECT_EQ(p.age(19), 1u);
  p.on_hit(0);
  EXPECT_EQ(p.age(0), 0u);
  // 1 and 2 (epoch 0), 3 and 4 (epoch 1), 5 and 6 (epoch 2); 0 was used since.
  EXPECT_EQ(EvictAndRefill(p, 6), (std::vector<uint32_t>{1, 2, 3, 4, 5, 6}));
  // Six insertions made three epochs (3-13 held); a block used now is younger than one inserted
  // now.
  EXPECT_EQ(p.epochs_held(), 11u);
  EXPECT_EQ(p.age(0), 3u);
  EXPECT_EQ(p.age(6), 1u);
  p.on_hit(6);
  EXPECT_EQ(p.age(6), 0u);
}

// Capacity 4: every insertion starts an epoch; slots 0-3 are stamped 0-3, the newest is 4.
TEST(EpochLruPolicyTest, ARefusedBlockCountsAsUsedAndIsTriedAgainLast) {
  EpochLruPolicy p(4);
  for (uint32_t s = 0; s < 4; ++s) p.on_insert(s, 100 + s);
  std::vector<uint32_t> tried;
  auto refuse_0 = [&](uint32_t s) {
    tried.push_back(s);
    return s != 0;
  };
  EXPECT_EQ(p.pick_victim(refuse_0, 100), 1u);
  EXPECT_EQ(tried, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(p.age(0), 0u);
  EXPECT_EQ(p.pick_victim(kAny, 1), 1u);  // not evicted: proposed again
  p.on_evict(1, 101);
  p.on_insert(1, 201);  // epoch 5, stamped 4; 0 holds 4 too, 2 and 3 hold 2 and 3
  // Everything refused: 2, 3, 0 and 1 are restamped with epoch 5 in turn, then tried once more.
  tried.clear();
  auto refuse_all = [&](uint32_t s) {
    tried.push_back(s);
    return false;
  };
  EXPECT_EQ(p.pick_victim(refuse_all, 100), std::nullopt);
  EXPECT_EQ(tried, (std::vector<uint32_t>{2, 3, 0, 1, 2, 3, 0, 1}));
  EXPECT_EQ(p.pick_victim(kAny, 1), 2u);  // nothing lost
  EXPECT_EQ(p.pick_victim(refuse_all, 3), std::nullopt);  // max_scan bounds the tries
}

// Blocks that are never evicted hold their epochs: the count waits at 14 (15 epochs held), so
// stamps kept modulo 15 never alias and the oldest block still goes first.
TEST(EpochLruPolicyTest, TheEpochWaitsWhileFifteenAreHeld) {
  EpochLruPolicy p(4);
  for (uint32_t s = 0; s < 4; ++s) p.on_insert(s, 100 + s);
  for (int i = 0; i < 20; ++i) {
    p.on_remove(3);
    p.on_insert(3, 200 + i);
  }
  EXPECT_EQ(p.epochs_held(), 15u);
  EXPECT_EQ(p.age(0), 14u);
  EXPECT_EQ(p.age(3), 1u);
  std::vector<uint32_t> evicted;
  for (int i = 0; i < 4; ++i) {
    const auto victim = p.pick_victim(kAny, 4);
    ASSERT_TRUE(victim.has_value());
    evicted.push_back(*victim);
    p.on_evict(*victim, 0);
  }
  EXPECT_EQ(evicted, (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(p.pick_victim(kAny, 4), std::nullopt);
}

TEST(EpochLruPolicyTest, FreeSlotsAndTheHand) {
  EpochLruPolicy p(4);
  for (uint32_t s = 0; s < 4; ++s) p.on_insert(s, 100 + s);
  p.on_remove(0);  // under the hand: moves to 1
  EXPECT_EQ(p.hand(), 1u);
  EXPECT_EQ(p.age(0), std::nullopt);
  p.on_remove(2);
  p.on_remove(2);  // twice is harmless
  p.on_hit(2);     // free slot: ignored
  EXPECT_EQ(p.age(2), std::nullopt);
  EXPECT_EQ(p.pick_victim(kAny, 4), 1u);
  p.on_evict(1, 101);
  EXPECT_EQ(p.pick_victim(kAny, 4), 3u);
  p.on_evict(3, 103);
  EXPECT_EQ(p.pick_victim(kAny, 4), std::nullopt);
}

TEST(EpochLruPolicyTest, MemoryIsHalfAByteForEachSlot) {
  EXPECT_EQ(EpochLruPolicy(1000).memory_size(), 500u);
  EXPECT_EQ(EpochLruPolicy(7).memory_size(), 4u);
}

}  // namespace
}  // namespace tiercache
