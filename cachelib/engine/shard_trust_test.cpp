// Shard's trust walks in steps (begin_trust_walk, mark_trust_step, trust_step): a walk over L
// list entries takes ceil(L / max) steps, and changes between steps leave exactly the lines the
// one-hold walks would leave untrusted: a line written after its mark stays untrusted, one
// written before its mark is trusted (the core flush follows every mark), and one trusted and
// written again is listed again for the next round. Also: which persist releases a line whose
// durable record said dirty (release_durable).
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "cachelib/engine/shard.h"
#include "policy/admission/always_admit.h"
#include "policy/replacement/lru_policy.h"

namespace tiercache {
namespace {

constexpr uint32_t kFirst = 60;  // global ids 60..69: slots 0..9
constexpr uint32_t kLines = 10;

class ShardTrustTest : public ::testing::Test {
 protected:
  ShardTrustTest()
      // The last of 7 shards of 10 contiguous lines.
      : shard(ShardLines(kFirst + kLines, 7, 0), 6, 1, std::make_unique<LruPolicy>(kLines),
              std::make_unique<AlwaysAdmit>(), /*keep_reserve=*/false) {
    for (uint32_t i = 0; i < kLines; ++i) {
      uint32_t to_limbo = 0;
      bool evicted = false;
      EXPECT_EQ(shard.allocate(100 + i, [](uint32_t) { return false; }, &to_limbo, &evicted),
                kFirst + i);
    }
    EXPECT_EQ(shard.untrusted_lines(), kLines);  // fresh lines: untrusted, durably
  }
  // Runs a mark walk of `max` entries per step; returns the steps taken.
  int Mark(uint32_t max, uint64_t& marked) {
    shard.begin_trust_walk();
    int steps = 1;
    while (!shard.mark_trust_step(max, /*durable_only=*/true, marked)) ++steps;
    return steps;
  }
  bool TrustStep(uint32_t max, uint64_t& trusted) {
    return shard.trust_step(max, [this](uint32_t id) { changed.push_back(id); }, trusted);
  }

  Shard shard;
  std::vector<uint32_t> changed;  // records staged by the trust walk, in order
};

TEST_F(ShardTrustTest, AWriteBetweenTrustStepsKeepsItsLineUntrusted) {
  uint64_t marked = 0, trusted = 0;
  EXPECT_EQ(Mark(3, marked), 4);  // ceil(10 / 3)
  EXPECT_EQ(marked, kLines);
  shard.begin_trust_walk();
  ASSERT_FALSE(TrustStep(3, trusted));  // lines 0-2
  EXPECT_EQ(trusted, 3u);
  EXPECT_FALSE(shard.mark_untrusted(kFirst + 5));  // written ahead of the walk: no candidate now
  EXPECT_TRUE(shard.mark_untrusted(kFirst + 1));   // trusted, then written: listed again
  int steps = 1;
  while (!TrustStep(3, trusted)) ++steps;
  EXPECT_EQ(steps, 3);  // 4 steps in all: the entry appended past the walk's end is not walked
  EXPECT_EQ(trusted, 9u);
  EXPECT_EQ(changed, (std::vector<uint32_t>{kFirst, kFirst + 1, kFirst + 2, kFirst + 3, kFirst + 4,
                                            kFirst + 6, kFirst + 7, kFirst + 8, kFirst + 9}));
  EXPECT_EQ(shard.untrusted_lines(), 2u);
  EXPECT_TRUE(shard.untrusted(kFirst + 1));
  EXPECT_TRUE(shard.untrusted(kFirst + 5));

  // The list holds exactly the two lines: line 5's kept entry, then line 1's appended one.
  marked = 0;
  EXPECT_EQ(Mark(1, marked), 2);
  EXPECT_EQ(marked, 1u);  // line 1's untrust is not durable: only line 5 may be trusted
  trusted = 0;
  changed.clear();
  shard.begin_trust_walk();
  EXPECT_FALSE(TrustStep(1, trusted));
  EXPECT_TRUE(TrustStep(1, trusted));
  EXPECT_EQ(changed, (std::vector<uint32_t>{kFirst + 5}));
  EXPECT_EQ(shard.untrusted_lines(), 1u);
  EXPECT_TRUE(shard.untrusted(kFirst + 1));
}

TEST_F(ShardTrustTest, AWriteBetweenMarkStepsCountsOnlyAheadOfTheWalk) {
  uint64_t marked = 0, trusted = 0;
  shard.begin_trust_walk();
  ASSERT_FALSE(shard.mark_trust_step(4, true, marked));  // lines 0-3
  EXPECT_FALSE(shard.mark_untrusted(kFirst + 2));  // after its mark: stays untrusted
  EXPECT_FALSE(shard.mark_untrusted(kFirst + 6));  // before its mark: the flush covers it
  ASSERT_FALSE(shard.mark_trust_step(4, true, marked));
  ASSERT_TRUE(shard.mark_trust_step(4, true, marked));
  EXPECT_EQ(marked, kLines);
  shard.begin_trust_walk();
  EXPECT_TRUE(TrustStep(kLines, trusted));
  EXPECT_EQ(trusted, 9u);
  EXPECT_EQ(shard.untrusted_lines(), 1u);
  EXPECT_TRUE(shard.untrusted(kFirst + 2));
  EXPECT_FALSE(shard.untrusted(kFirst + 6));
}

TEST_F(ShardTrustTest, OneHoldWalksTrustTheSameLines) {
  uint64_t marked = 0;
  EXPECT_EQ(Mark(3, marked), 4);
  EXPECT_EQ(shard.trust_candidates([this](uint32_t id) { changed.push_back(id); }), kLines);
  EXPECT_EQ(changed.size(), kLines);
  EXPECT_EQ(shard.untrusted_lines(), 0u);
  EXPECT_EQ(shard.mark_trust_candidates(), 0u);
}

// A line cleaned (its clean record staged at persist epoch 1), dirtied again (a persist then says
// dirty) and cleaned again (staged at 5): persist 3 completing releases the first staging only,
// and the line stays marked durably dirty, so it is not reused while a durable record says dirty;
// persist 6 releases it. (A power-cut test found the older staging releasing it: its slot took
// another block's data while the durable record still said dirty, and the crash served that.)
TEST_F(ShardTrustTest, AnOlderCleanStagingDoesNotReleaseALineCleanedAgain) {
  const uint32_t id = kFirst + 2;
  SectorBits dirty;
  dirty.set(0);
  shard.set_valid(id, dirty);
  // As Engine::set_dirty does: dirty (a persist will say so), then clean, staged at `epoch`.
  auto dirty_then_clean = [&](uint64_t epoch) {
    shard.set_dirty(id, dirty, 0);
    shard.set_durable_dirty(id, true);
    shard.set_dirty(id, SectorBits{}, 0);
    shard.note_clean_staged(id, epoch);
  };
  dirty_then_clean(1);
  dirty_then_clean(5);
  shard.release_durable(3);
  EXPECT_TRUE(shard.durable_dirty(id));
  shard.release_durable(6);
  EXPECT_FALSE(shard.durable_dirty(id));
  // One staging, as before: released by the first persist after it.
  dirty_then_clean(7);
  shard.release_durable(7);
  EXPECT_TRUE(shard.durable_dirty(id));
  shard.release_durable(8);
  EXPECT_FALSE(shard.durable_dirty(id));
}

}  // namespace
}  // namespace tiercache
