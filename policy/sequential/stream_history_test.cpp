#include "policy/sequential/stream_history.h"

#include <gtest/gtest.h>

namespace tiercache {
namespace {

constexpr uint64_t kMiB = 1 << 20;

TEST(StreamHistoryTest, AFirstReadOverlapsNothing) {
  StreamHistory h(4, 0);
  EXPECT_EQ(h.add(0, kMiB, 0).span, 0u);
  EXPECT_EQ(h.memory_size(), 4u * 24);
}

// A stream's requests grow one extent (continuing it is no overlap); a read overlaps it by any
// byte, and touching its ends from outside is no overlap. Each answer is the extent's span then,
// and where the read starts in it.
TEST(StreamHistoryTest, ContinuingRequestsGrowOneExtent) {
  StreamHistory h(2, 0);
  for (uint64_t i = 4; i < 8; ++i) EXPECT_EQ(h.add(i * kMiB, kMiB, i).span, 0u) << i;
  EXPECT_EQ(h.add(8 * kMiB, kMiB, 8).span, 0u);  // continues: [4, 9) MiB now
  EXPECT_EQ(h.add(3 * kMiB, kMiB, 9).span, 0u);  // ends where it starts: [3, 9)
  StreamHistory::Overlap o = h.add(9 * kMiB - 1, 1, 10);
  EXPECT_EQ(o.span, 6 * kMiB);
  EXPECT_EQ(o.into, 6 * kMiB - 1);  // from the extent's start, 3 MiB
  o = h.add(0, 3 * kMiB + 1, 11);   // grows it to [0, 9)
  EXPECT_EQ(o.span, 6 * kMiB);
  EXPECT_EQ(o.into, 0u);  // it starts before the extent
  o = h.add(5 * kMiB, 1, 12);
  EXPECT_EQ(o.span, 9 * kMiB);
  EXPECT_EQ(o.into, 5 * kMiB);
  // One extent for all of them: a second stream finds the free entry, and the first stream is
  // remembered alongside it.
  EXPECT_EQ(h.add(100 * kMiB, kMiB, 13).span, 0u);
  EXPECT_EQ(h.add(5 * kMiB, 1, 14).span, 9 * kMiB);
  EXPECT_EQ(h.add(100 * kMiB, 1, 15).span, kMiB);
}

// An extent is forgotten once more than `horizon` bytes passed since it was last read; reading
// it again makes it young.
TEST(StreamHistoryTest, HorizonForgetsUnlessReadAgain) {
  StreamHistory h(2, 100);
  h.add(0, kMiB, 50);
  EXPECT_EQ(h.add(0, 1, 150).span, kMiB);  // read again at 150: young again
  EXPECT_EQ(h.add(0, 1, 250).span, kMiB);
  EXPECT_EQ(h.add(0, 1, 351).span, 0u);  // forgotten at 351, then taken again by this read
  EXPECT_EQ(h.add(0, 1, 352).span, 1u);
}

// A new stream takes a free entry, else the one read longest ago (a forgotten one is older than
// any other).
TEST(StreamHistoryTest, NewStreamReplacesTheOldest) {
  StreamHistory h(2, 0);
  h.add(0, kMiB, 1);
  h.add(10 * kMiB, kMiB, 2);
  h.add(0, kMiB, 3);  // the first extent read again: now the younger
  h.add(20 * kMiB, kMiB, 4);
  EXPECT_EQ(h.add(0, 1, 5).span, kMiB);
  EXPECT_EQ(h.add(20 * kMiB, 1, 6).span, kMiB);
  EXPECT_EQ(h.add(10 * kMiB, 1, 7).span, 0u);  // forgotten; it takes the oldest entry, [0, 1 MiB)
  EXPECT_EQ(h.add(0, 1, 8).span, 0u);
}

}  // namespace
}  // namespace tiercache
