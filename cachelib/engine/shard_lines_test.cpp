// ShardLines: every line belongs to exactly one shard, local and id are inverses, the counts add
// up; stripes go to the shards in turn, and a stripe of 0 gives the contiguous ranges of format
// versions 5 and 6 (the layout those caches' records were written for).
#include "cachelib/engine/shard_lines.h"

#include <gtest/gtest.h>

#include <vector>

namespace tiercache {
namespace {

// Checks the mapping exhaustively and returns, per shard, its ids in local order.
std::vector<std::vector<uint32_t>> Owned(const ShardLines& l) {
  std::vector<std::vector<uint32_t>> owned(l.shards());
  for (uint32_t id = 0; id < l.lines(); ++id) {
    const uint32_t s = l.shard_of(id);
    EXPECT_LT(s, l.shards()) << "line " << id;
    if (s >= l.shards()) continue;
    EXPECT_EQ(l.local(id), owned[s].size()) << "line " << id;
    EXPECT_EQ(l.id(s, l.local(id)), id);
    owned[s].push_back(id);
  }
  for (uint32_t s = 0; s < l.shards(); ++s) {
    EXPECT_EQ(l.count(s), owned[s].size()) << "shard " << s;
    EXPECT_GT(l.count(s), 0u) << "shard " << s;
  }
  return owned;
}

TEST(ShardLinesTest, StripesGoToTheShardsInTurn) {
  const ShardLines l(100, 3, 16);  // 6 stripes of 16 and one of 4
  EXPECT_EQ(l.stripe(), 16u);
  EXPECT_EQ(l.shards(), 3u);
  const auto owned = Owned(l);
  EXPECT_EQ(owned[0].front(), 0u);
  EXPECT_EQ(owned[0][16], 48u);  // its second stripe follows one stripe of each other shard
  EXPECT_EQ(owned[1].front(), 16u);
  EXPECT_EQ(owned[2].front(), 32u);
  EXPECT_EQ(l.count(0), 36u);  // stripes 0, 3 and the 4 lines of stripe 6
  EXPECT_EQ(l.count(1), 32u);
  EXPECT_EQ(l.count(2), 32u);
  EXPECT_EQ(l.shard_of(99), 0u);
  EXPECT_EQ(l.local(99), 35u);
}

TEST(ShardLinesTest, ZeroStripeIsOneContiguousRangePerShard) {
  const ShardLines l(1000, 16, 0);  // 63 lines per shard, the last one 55
  EXPECT_EQ(l.stripe(), 63u);
  EXPECT_EQ(l.shards(), 16u);
  const auto owned = Owned(l);
  for (uint32_t s = 0; s < 16; ++s) {
    EXPECT_EQ(owned[s].front(), s * 63);
    EXPECT_EQ(owned[s].back(), std::min(s * 63 + 62, 999u));
  }
  EXPECT_EQ(l.count(15), 55u);
}

// A stripe longer than a shard's share is cut to it, so a small cache keeps every shard (and
// the layout of versions 5 and 6); shards that would get no line are not made.
TEST(ShardLinesTest, SmallCachesStayContiguous) {
  const ShardLines small(64, 16, 16);
  EXPECT_EQ(small.stripe(), 4u);
  EXPECT_EQ(small.shards(), 16u);
  const ShardLines few(17, 16, 0);  // ceil(17 / 16) = 2 lines per shard: 9 shards
  EXPECT_EQ(few.shards(), 9u);
  EXPECT_EQ(few.count(8), 1u);
  Owned(small);
  Owned(few);
  const ShardLines one(5, 1, 16);
  EXPECT_EQ(one.shards(), 1u);
  EXPECT_EQ(one.count(0), 5u);
  Owned(one);
}

TEST(ShardLinesTest, EveryShapeIsABijection) {
  for (uint32_t lines : {1u, 15u, 16u, 255u, 256u, 257u, 4096u, 4103u}) {
    for (uint32_t shards : {1u, 2u, 7u, 16u}) {
      for (uint32_t stripe : {0u, 1u, 3u, 16u}) {
        SCOPED_TRACE(testing::Message() << lines << " lines, " << shards << " shards, stripe "
                                        << stripe);
        Owned(ShardLines(lines, shards, stripe));
      }
    }
  }
}

}  // namespace
}  // namespace tiercache
