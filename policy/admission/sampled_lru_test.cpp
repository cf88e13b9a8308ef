#include "policy/admission/sampled_lru.h"

#include <gtest/gtest.h>

#include <vector>

namespace tiercache {
namespace {

// Hand-computed: two entries; 1 2 1 3 2 1 2 = miss miss hit miss(2 out) miss(1 out) miss(3 out)
// hit.
TEST(SampledLruTest, FollowsATextbookLruByHand) {
  SampledLru lru(2);
  const std::vector<std::pair<uint64_t, bool>> steps = {{1, false}, {2, false}, {1, true},
                                                        {3, false}, {2, false}, {1, false},
                                                        {2, true}};
  for (size_t i = 0; i < steps.size(); ++i) {
    EXPECT_EQ(lru.access(steps[i].first), steps[i].second) << "step " << i;
  }
  EXPECT_EQ(lru.size(), 2u);
}

// A loop of entries + 1 blocks misses every time; a loop of `entries` blocks hits after its first
// pass.
TEST(SampledLruTest, ALoopOneLargerThanItMissesAlways) {
  for (const uint32_t loop : {64u, 65u}) {
    SampledLru lru(64);
    uint32_t hits = 0;
    for (int pass = 0; pass < 4; ++pass) {
      for (uint64_t block = 0; block < loop; ++block) hits += lru.access(block * 4096 + 7);
    }
    EXPECT_EQ(hits, loop == 64 ? 3u * 64 : 0u) << loop;
  }
}

TEST(SampledLruTest, MemoryIsFixed) {
  SampledLru lru(300);  // 300 entries and 512 buckets
  const uint64_t before = lru.memory_size();
  for (uint64_t block = 0; block < 10000; ++block) lru.access(block);
  EXPECT_EQ(lru.memory_size(), before);
  EXPECT_EQ(lru.size(), 300u);
  EXPECT_GE(before, 300u * 24 + 512u * 8);
}

}  // namespace
}  // namespace tiercache
