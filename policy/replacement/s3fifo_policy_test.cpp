#include "policy/replacement/s3fifo_policy.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

namespace tiercache {
namespace {

const auto kAny = [](uint32_t) { return true; };

std::map<std::string, uint64_t> Counters(const S3FifoPolicy& p) {
  std::map<std::string, uint64_t> c;
  p.visit_counters([&](std::string_view name, uint64_t v) { c[std::string(name)] = v; });
  return c;
}

// Inserts block 100 + s into slot s for each slot in [0, n).
void Fill(S3FifoPolicy& p, uint32_t n) {
  for (uint32_t s = 0; s < n; ++s) p.on_insert(s, 100 + s);
}

// Capacity 10, share 0.2: small FIFO of 2, ghost of 8 (2 generations of 4).
TEST(S3FifoPolicyTest, EvictionSequence) {
  S3FifoPolicy p(10, 0.2);
  ASSERT_EQ(p.small_target(), 2u);
  Fill(p, 10);  // each insert past the 2nd moves small's oldest to main: main 0-7, small [8 9]
  EXPECT_EQ(p.small_size(), 2u);
  EXPECT_EQ(p.main_size(), 8u);
  p.on_hit(8);  // small, freq 1
  p.on_hit(3);
  p.on_hit(3);  // main, freq 2
  p.on_hit(0);  // main, freq 1
  // Small is at its share: 8 had a hit -> promoted; small [9] is below its share -> main's hand:
  // 0 (freq 1 -> 0), 1 (freq 0) proposed.
  EXPECT_EQ(p.pick_victim(kAny, 10), 1u);
  EXPECT_EQ(p.pick_victim(kAny, 10), 1u);  // not evicted: proposed again
  EXPECT_EQ(p.hand(), 1u);
  p.on_evict(1, 101);  // the hand moves on to 2
  EXPECT_EQ(p.hand(), 2u);
  p.on_insert(1, 201);  // small [9 1]
  // Small at its share again, its oldest (9) is unused: proposed, then remembered in the ghost.
  EXPECT_EQ(p.pick_victim(kAny, 10), 9u);
  p.on_evict(9, 109);
  p.on_insert(9, 109);  // ghost hit: straight to main; small [1] is below its share
  EXPECT_EQ(p.main_size(), 9u);
  // Main: 2 refused, 3 (freq 2 -> 1), 4 proposed.
  EXPECT_EQ(p.pick_victim([](uint32_t s) { return s != 2; }, 10), 4u);
  p.on_evict(4, 104);
  p.on_insert(4, 204);  // small [1 4]
  // Small at its share: 1 proposed.
  EXPECT_EQ(p.pick_victim(kAny, 10), 1u);
  p.on_evict(1, 201);
  std::map<std::string, uint64_t> expected = {{"ghost_hits", 1},
                                              {"main_evictions", 2},
                                              {"promotions", 1},
                                              {"small_evictions", 2},
                                              {"small_overflows", 8}};
  EXPECT_EQ(Counters(p), expected);
}

TEST(S3FifoPolicyTest, RefusedBlocksStayQueued) {
  S3FifoPolicy p(10, 0.2);
  Fill(p, 10);  // main 0-7 (freq 0), small [8 9], hand at 0
  // Small's 8 refused (requeued: small [9 8]), 9 proposed.
  EXPECT_EQ(p.pick_victim([](uint32_t s) { return s != 8; }, 10), 9u);
  // Both small blocks refused: small is exhausted, main's hand proposes 0.
  EXPECT_EQ(p.pick_victim([](uint32_t s) { return s < 8; }, 10), 0u);
  // max_scan bounds the candidates tried: 9 and 8 refused, 2 tries -> none.
  EXPECT_EQ(p.pick_victim([](uint32_t s) { return s < 8; }, 2), std::nullopt);
  // Everything refused: each block is tried once (small [9 8], then main 0-7), then none.
  std::vector<uint32_t> tried;
  auto refuse_all = [&](uint32_t s) {
    tried.push_back(s);
    return false;
  };
  EXPECT_EQ(p.pick_victim(refuse_all, 100), std::nullopt);
  EXPECT_EQ(tried, (std::vector<uint32_t>{9, 8, 0, 1, 2, 3, 4, 5, 6, 7}));
  // Nothing was lost: small is [9 8] again, then main from the hand (back at 0).
  std::vector<uint32_t> order;
  for (int i = 0; i < 10; ++i) {
    auto v = p.pick_victim(kAny, 10);
    ASSERT_TRUE(v.has_value());
    order.push_back(*v);
    p.on_evict(*v, 100 + *v);
  }
  // Small first while it holds its share (2 of 2), then main (small is below its share once
  // one small block is gone, so main goes next), and small's last block when main is empty.
  EXPECT_EQ(order, (std::vector<uint32_t>{9, 0, 1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(p.pick_victim(kAny, 10), std::nullopt);
  EXPECT_EQ(p.small_size() + p.main_size(), 0u);
}

TEST(S3FifoPolicyTest, HandDecrementsDoNotCountAsTries) {
  S3FifoPolicy p(10, 0.2);
  Fill(p, 10);
  p.on_evict(8, 108);  // small [9]: below its share, main goes first
  for (uint32_t s = 0; s < 8; ++s) {
    for (int i = 0; i < 5; ++i) p.on_hit(s);  // freq capped at 3
  }
  // Three full turns bring every freq to 0; then 0 is the first try.
  EXPECT_EQ(p.pick_victim(kAny, 1), 0u);
}

TEST(S3FifoPolicyTest, RemoveFromEitherQueue) {
  S3FifoPolicy p(10, 0.3);  // small FIFO of 3
  Fill(p, 10);              // main 0-6, small [7 8 9]
  p.on_remove(8);           // from the middle of small: leaves a stale entry
  p.on_remove(7);           // small's oldest
  p.on_remove(0);           // main, under the hand: the hand moves to 1
  p.on_remove(0);           // twice is harmless
  p.on_hit(0);              // free slot: ignored
  EXPECT_EQ(p.hand(), 1u);
  EXPECT_EQ(p.small_size(), 1u);
  EXPECT_EQ(p.main_size(), 6u);
  p.on_insert(8, 300);  // slot 8 again, now newest: small [9 8]
  p.on_insert(7, 301);  // small [9 8 7]
  p.on_insert(0, 302);  // small full: 9 overflows to main; small [8 7 0]
  std::vector<uint32_t> order;
  for (int i = 0; i < 4; ++i) {
    auto v = p.pick_victim(kAny, 10);
    ASSERT_TRUE(v.has_value());
    order.push_back(*v);
    p.on_evict(*v, 400 + i);
    p.on_insert(*v, 500 + i);  // refills small, which stays at its share
  }
  // The stale entry of 8 is skipped: 8, 7, 0, then the first refill (slot 8 again).
  EXPECT_EQ(order, (std::vector<uint32_t>{8, 7, 0, 8}));
}

TEST(S3FifoPolicyTest, RingCompactsStaleEntriesWhenFull) {
  S3FifoPolicy p(20, 0.25);  // small FIFO of 5 in a ring of 6
  Fill(p, 5);                // small [0 1 2 3 4]
  p.on_remove(1);
  p.on_remove(3);       // ring: 0 x 2 x 4
  p.on_insert(1, 201);  // ring full: 0 x 2 x 4 1
  p.on_insert(3, 203);  // compacts to 0 2 4 1, then 0 2 4 1 3
  std::vector<uint32_t> order;
  for (int i = 0; i < 5; ++i) {
    auto v = p.pick_victim(kAny, 10);
    ASSERT_TRUE(v.has_value());
    order.push_back(*v);
    p.on_evict(*v, 0);
  }
  EXPECT_EQ(order, (std::vector<uint32_t>{0, 2, 4, 1, 3}));
  EXPECT_EQ(p.pick_victim(kAny, 10), std::nullopt);
}

TEST(S3FifoPolicyTest, ManyStaleEntriesOfOneSlot) {
  S3FifoPolicy p(1000, 0.2);  // small FIFO of 200: room for 20 stale entries
  p.on_insert(0, 100);
  p.on_insert(1, 101);
  for (int i = 0; i < 20; ++i) {  // the 16th removal overflows the 4-bit count: compaction
    p.on_remove(1);
    p.on_insert(1, 200 + i);
  }
  p.on_insert(2, 300);
  p.on_remove(1);
  p.on_insert(1, 301);  // small [0 2 1]
  std::vector<uint32_t> order;
  for (int i = 0; i < 3; ++i) {
    auto v = p.pick_victim(kAny, 10);
    ASSERT_TRUE(v.has_value());
    order.push_back(*v);
    p.on_evict(*v, 0);
  }
  EXPECT_EQ(order, (std::vector<uint32_t>{0, 2, 1}));
  EXPECT_EQ(p.pick_victim(kAny, 10), std::nullopt);
}

TEST(S3FifoPolicyTest, CapacityOne) {
  S3FifoPolicy p(1);
  EXPECT_EQ(p.small_target(), 1u);
  EXPECT_EQ(p.pick_victim(kAny, 1), std::nullopt);
  p.on_insert(0, 7);
  EXPECT_EQ(p.pick_victim(kAny, 1), 0u);
  EXPECT_EQ(p.pick_victim([](uint32_t) { return false; }, 5), std::nullopt);
  p.on_evict(0, 7);
  p.on_insert(0, 8);  // no ghost (main's size is 0): small again
  p.on_hit(0);
  EXPECT_EQ(p.pick_victim(kAny, 1), 0u);  // promoted to main (freq 1), hand: 1 -> 0, proposed
  EXPECT_EQ(p.main_size(), 1u);
  p.on_remove(0);
  EXPECT_EQ(p.pick_victim(kAny, 1), std::nullopt);
}

TEST(S3FifoPolicyTest, CapacityTwo) {
  S3FifoPolicy p(2);  // small FIFO of 1, ghost of 1
  p.on_insert(0, 10);
  p.on_insert(1, 11);  // small full: 0 overflows to main; small [1]
  EXPECT_EQ(p.pick_victim(kAny, 4), 1u);
  p.on_evict(1, 11);   // ghost {11}
  p.on_insert(1, 11);  // ghost hit: main {0, 1}, small empty
  EXPECT_EQ(p.small_size(), 0u);
  EXPECT_EQ(p.pick_victim(kAny, 4), 0u);
  p.on_evict(0, 10);
  EXPECT_EQ(p.hand(), 1u);
  p.on_insert(0, 12);                     // small [0]
  EXPECT_EQ(p.pick_victim(kAny, 4), 0u);  // small holds its share
  EXPECT_EQ(p.pick_victim([](uint32_t s) { return s == 1; }, 4), 1u);
}

TEST(S3FifoPolicyTest, MemoryIsUnderThreeBytesPerSlot) {
  S3FifoPolicy p(100000);
  // 100000 state bytes + (10000 + 1250 + 1) * 4 ring bytes + 90000 ghost bytes.
  EXPECT_EQ(p.memory_size(), 100000u + 11251u * 4u + 90000u);
  EXPECT_LT(p.memory_size(), 3u * 100000u);
}

}  // namespace
}  // namespace tiercache
