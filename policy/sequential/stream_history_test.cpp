#include "policy/sequential/stream_history.h"

#include <gtest/gtest.h>

namespace tiercache {
namespace {

constexpr uint64_t kMiB = 1 << 20;

TEST(StreamHistoryTest, EmptyOverlapsNothing) {
  StreamHistory h(4, 0);
  EXPECT_FALSE(h.overlaps(0, kMiB, 0));
  EXPECT_EQ(h.memory_size(), 4u * 24);
}

// A stream's requests grow one extent; a read overlaps it by any byte, and touching its ends
// from outside is no overlap.
TEST(StreamHistoryTest, ContinuingRequestsGrowOneExtent) {
  StreamHistory h(2, 0);
  for (uint64_t i = 4; i < 8; ++i) h.add(i * kMiB, kMiB, i);
  EXPECT_TRUE(h.overlaps(4 * kMiB, 1, 8));
  EXPECT_TRUE(h.overlaps(8 * kMiB - 1, 1, 8));
  EXPECT_TRUE(h.overlaps(0, 4 * kMiB + 1, 8));
  EXPECT_FALSE(h.overlaps(0, 4 * kMiB, 8));
  EXPECT_FALSE(h.overlaps(8 * kMiB, kMiB, 8));
  // One extent for the four requests: a second stream still finds a free entry, so the first
  // stream is remembered alongside it.
  h.add(100 * kMiB, kMiB, 9);
  EXPECT_TRUE(h.overlaps(5 * kMiB, 1, 9));
  EXPECT_TRUE(h.overlaps(100 * kMiB, 1, 9));
}

// An extent is forgotten once more than `horizon` bytes passed since it was last read; reading
// it again makes it young.
TEST(StreamHistoryTest, HorizonForgetsUnlessReadAgain) {
  StreamHistory h(2, 100);
  h.add(0, kMiB, 50);
  EXPECT_TRUE(h.overlaps(0, 1, 150));
  EXPECT_FALSE(h.overlaps(0, 1, 151));
  h.add(kMiB, kMiB, 140);  // continues the extent at 140: young again
  EXPECT_TRUE(h.overlaps(0, 1, 240));
  EXPECT_FALSE(h.overlaps(0, 1, 241));
}

// A new stream takes a free entry, else the one read longest ago (a forgotten one is older
// than any other).
TEST(StreamHistoryTest, NewStreamReplacesTheOldest) {
  StreamHistory h(2, 0);
  h.add(0, kMiB, 1);
  h.add(10 * kMiB, kMiB, 2);
  h.add(0, kMiB, 3);  // the first extent read again: now the younger
  h.add(20 * kMiB, kMiB, 4);
  EXPECT_TRUE(h.overlaps(0, 1, 4));
  EXPECT_FALSE(h.overlaps(10 * kMiB, 1, 4));
  EXPECT_TRUE(h.overlaps(20 * kMiB, 1, 4));
}

}  // namespace
}  // namespace tiercache
