// DirtyPageTable: pages in the order their oldest journaled change was given, exact page lists.
#include "cachelib/metadata/dirty_page_table.h"

#include <gtest/gtest.h>

namespace tiercache {
namespace {

using Pages = std::vector<uint64_t>;

TEST(DirtyPageTableTest, OldestRoundsFirstAndTheirRoundsMoveOn) {
  DirtyPageTable t(8);
  t.journaled(5, 3);
  t.journaled(2, 3);
  t.journaled(5, 4);  // keeps round 3: its older change is not on a page yet
  t.journaled(7, 4);
  t.mark(1);          // changed, no journal round holds it yet
  EXPECT_EQ(t.dirty_count(), 4u);
  EXPECT_EQ(t.oldest_round(), 3u);
  EXPECT_EQ(t.take_oldest(1), Pages{5});
  EXPECT_EQ(t.oldest_round(), 3u);  // page 2
  EXPECT_EQ(t.take_oldest(5), (Pages{2, 7}));  // only pages a journal round holds
  EXPECT_EQ(t.oldest_round(), std::nullopt);
  EXPECT_TRUE(t.dirty(1));
  EXPECT_FALSE(t.dirty(5));
  t.journaled(5, 6);  // changed again after its step: a new, younger round
  EXPECT_EQ(t.oldest_round(), 6u);
  EXPECT_EQ(t.take_all(), (Pages{1, 5}));
  EXPECT_EQ(t.dirty_count(), 0u);
  EXPECT_EQ(t.oldest_round(), std::nullopt);
}

TEST(DirtyPageTableTest, PagesCleanedOneByOneDoNotGrowTheList) {
  DirtyPageTable t(4);
  for (uint64_t round = 1; round <= 1000; ++round) {
    t.journaled(round % 4, round);
    ASSERT_EQ(t.take_oldest(1), Pages{round % 4});
    ASSERT_LE(t.list_entries(), 2u * 4 + 1) << round;
  }
  t.mark(3);
  t.mark(0);
  EXPECT_EQ(t.take_all(), (Pages{0, 3}));
}

}  // namespace
}  // namespace tiercache
