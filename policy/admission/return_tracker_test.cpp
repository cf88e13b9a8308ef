#include "policy/admission/return_tracker.h"

#include <gtest/gtest.h>

namespace tiercache {
namespace {

using Kind = ReturnTracker::Kind;
using EvictionRecord = ReturnTracker::EvictionRecord;
constexpr EvictionRecord kWasted{.recorded = true, .wasted = true};
constexpr EvictionRecord kNotWasted{.recorded = true, .wasted = false};

TEST(ReturnTrackerTest, MissThatComesBackWithinTheWindow) {
  ReturnTracker tracker(64, /*window=*/10, /*sample_shift=*/0);
  EXPECT_EQ(tracker.on_access(5, 1, false), std::nullopt);  // never recorded
  tracker.record_miss(5, 1, /*level=*/2, /*admitted=*/false);
  const auto ret = tracker.on_access(5, 11, false);  // 10 accesses later: still in the window
  ASSERT_TRUE(ret.has_value());
  EXPECT_EQ(ret->kind, Kind::kMiss);
  EXPECT_EQ(ret->level, 2);
  EXPECT_EQ(ret->distance, 10u);
  EXPECT_EQ(tracker.on_access(5, 12, false), std::nullopt);  // resolved once
  tracker.record_miss(6, 1, 0, false);
  EXPECT_EQ(tracker.on_access(6, 12, false), std::nullopt);  // 11 accesses later: too late
}

TEST(ReturnTrackerTest, EvictionsAndWastedAdmissions) {
  ReturnTracker tracker(64, 10, 0);
  tracker.record_miss(7, 1, 1, /*admitted=*/true);
  EXPECT_EQ(tracker.record_eviction(7, 3), kWasted);  // evicted before any hit
  const auto ret = tracker.on_access(7, 8, false);
  ASSERT_TRUE(ret.has_value());
  EXPECT_EQ(ret->kind, Kind::kEviction);

  tracker.record_miss(8, 1, 0, true);
  EXPECT_EQ(tracker.on_access(8, 2, /*hit=*/true)->kind, Kind::kMiss);
  EXPECT_EQ(tracker.record_eviction(8, 50), kNotWasted);  // it was hit: not wasted
  tracker.record_miss(9, 1, 0, /*admitted=*/false);
  EXPECT_EQ(tracker.record_eviction(9, 2), kNotWasted);  // refused blocks are never wasted
}

TEST(ReturnTrackerTest, AnEvictionOutsideTheSampleIsNotRecorded) {
  ReturnTracker tracker(64, 10, 1);  // 1 block in 2 followed
  uint64_t unsampled = 0;
  while (tracker.sampled(unsampled)) ++unsampled;
  tracker.record_miss(unsampled, 1, 0, /*admitted=*/true);
  EXPECT_EQ(tracker.record_eviction(unsampled, 3), EvictionRecord{});
  EXPECT_EQ(tracker.on_access(unsampled, 4, false), std::nullopt);
  EXPECT_EQ(tracker.expire(100, tracker.entries()).evictions, 0u);
}

TEST(ReturnTrackerTest, UnhitOutlivesTheWindow) {
  ReturnTracker tracker(64, 10, 0);
  tracker.record_miss(3, 1, 0, true);
  EXPECT_EQ(tracker.on_access(3, 100, true), std::nullopt);  // pending part long expired
  EXPECT_EQ(tracker.record_eviction(3, 200), kNotWasted);  // but the hit was seen
  tracker.record_miss(4, 1, 0, true);
  EXPECT_EQ(tracker.record_eviction(4, 1000), kWasted);
}

// take_unhit answers "wasted?" and records nothing: the block leaves no pending eviction, and a
// miss still pending ends (reported by the next expire()).
TEST(ReturnTrackerTest, TakeUnhitFreesTheEntry) {
  ReturnTracker tracker(64, 10, 0);
  tracker.record_miss(7, 1, 0, /*admitted=*/true);
  EXPECT_TRUE(tracker.take_unhit(7));
  EXPECT_EQ(tracker.on_access(7, 3, false), std::nullopt);  // no eviction to return to
  EXPECT_FALSE(tracker.take_unhit(7));                     // its entry is gone
  EXPECT_EQ(tracker.expire(4, tracker.entries()).misses, 1u);

  tracker.record_miss(8, 1, 0, true);
  EXPECT_EQ(tracker.on_access(8, 2, /*hit=*/true)->kind, Kind::kMiss);
  EXPECT_FALSE(tracker.take_unhit(8));  // it was hit
  tracker.record_miss(9, 1, 0, /*admitted=*/false);
  EXPECT_FALSE(tracker.take_unhit(9));  // refused blocks are never wasted
  EXPECT_FALSE(tracker.take_unhit(10));  // never recorded
}

TEST(ReturnTrackerTest, ExpireCountsPendingEventsPastTheWindow) {
  ReturnTracker tracker(64, 10, 0);
  tracker.record_miss(1, 1, 0, false);
  tracker.record_eviction(2, 1);
  tracker.record_eviction(3, 5);
  tracker.record_miss(4, 1, 0, false);
  EXPECT_TRUE(tracker.on_access(4, 2, false).has_value());  // returned: never expires
  const auto expired = tracker.expire(12, tracker.entries());
  EXPECT_EQ(expired.misses, 1u);
  EXPECT_EQ(expired.evictions, 1u);  // 3 is still within its window
  const auto later = tracker.expire(16, tracker.entries());
  EXPECT_EQ(later.misses, 0u);
  EXPECT_EQ(later.evictions, 1u);
  EXPECT_EQ(tracker.expire(100, tracker.entries()).evictions, 0u);  // each counted once
}

TEST(ReturnTrackerTest, FullBucketDropsTheOldestEntry) {
  ReturnTracker tracker(1, 1, 0);  // one bucket of 4 entries
  ASSERT_EQ(tracker.entries(), 4u);
  for (uint64_t block = 1; block <= 5; ++block) tracker.record_miss(block, block, 0, true);
  EXPECT_EQ(tracker.dropped(), 1u);
  EXPECT_EQ(tracker.record_eviction(1, 6), kNotWasted);  // its entry was taken by block 5
  EXPECT_EQ(tracker.dropped(), 2u);              // and recording 1 again pushed out 2
  EXPECT_EQ(tracker.record_eviction(3, 7), kWasted);
}

TEST(ReturnTrackerTest, ExpiredMissesAreCountedByLevel) {
  ReturnTracker tracker(64, 10, 0);
  tracker.record_miss(1, 1, /*level=*/0, false);
  tracker.record_miss(2, 1, 3, false);
  tracker.record_miss(3, 1, 3, true);
  tracker.record_miss(4, 1, 4, false);
  EXPECT_TRUE(tracker.on_access(4, 5, false).has_value());  // back: not an expiry
  const auto expired = tracker.expire(12, tracker.entries());
  EXPECT_EQ(expired.misses, 3u);
  EXPECT_EQ(expired.miss_levels[0], 1u);
  EXPECT_EQ(expired.miss_levels[3], 2u);
  EXPECT_EQ(expired.miss_levels[4], 0u);
}

// Every recorded event ends once: events whose entries are reused before the sweep reaches them
// are reported by the next expire(), even one that examines no entry.
TEST(ReturnTrackerTest, EventsEndingBeforeTheSweepAreReportedByTheNextExpire) {
  ReturnTracker tracker(64, 10, 0);
  tracker.record_miss(1, 1, 2, /*admitted=*/true);
  tracker.record_eviction(1, 3);  // evicted before it came back: its miss ended
  tracker.record_miss(2, 1, 1, false);
  EXPECT_EQ(tracker.on_access(2, 20, false), std::nullopt);  // back too late: ended
  tracker.record_miss(3, 1, 4, false);
  tracker.record_miss(3, 30, 4, false);  // missed again, never accessed between: the first ended
  auto ended = tracker.expire(30, 0);
  EXPECT_EQ(ended.misses, 3u);
  EXPECT_EQ(ended.miss_levels[2], 1u);
  EXPECT_EQ(ended.miss_levels[1], 1u);
  EXPECT_EQ(ended.miss_levels[4], 1u);
  EXPECT_EQ(ended.evictions, 0u);
  EXPECT_EQ(tracker.expire(30, 0).misses, 0u);  // reported once
  // The sweep then finds block 1's eviction (at 3) and block 3's second miss (at 30) ended.
  ended = tracker.expire(100, tracker.entries());
  EXPECT_EQ(ended.evictions, 1u);
  EXPECT_EQ(ended.misses, 1u);
}

TEST(ReturnTrackerTest, ADroppedPendingEntryEnds) {
  ReturnTracker tracker(1, 1, 0);  // one bucket of 4 entries
  for (uint64_t block = 1; block <= 5; ++block) tracker.record_miss(block, 1, 0, false);
  EXPECT_EQ(tracker.dropped(), 1u);
  const auto ended = tracker.expire(1, 0);  // block 1's live miss was pushed out by block 5
  EXPECT_EQ(ended.misses, 1u);
  EXPECT_EQ(ended.miss_levels[0], 1u);
}

TEST(ReturnTrackerTest, SamplesAndSizesByShift) {
  ReturnTracker all(1024, 1024, 0);
  ReturnTracker eighth(1024, 1024, 3);
  int sampled = 0;
  for (uint64_t block = 0; block < 8000; ++block) {
    EXPECT_TRUE(all.sampled(block));
    sampled += eighth.sampled(block);
    // Blocks outside the sample are not recorded, so they never come back.
    EXPECT_EQ(eighth.record_miss(block, 1, 0, false), eighth.sampled(block));
    EXPECT_EQ(eighth.on_access(block, 2, false).has_value(), eighth.sampled(block));
  }
  EXPECT_EQ(sampled, 991);  // about 1 in 8
  // (capacity + window) >> shift = 256 entries may be live; room for twice that.
  EXPECT_EQ(eighth.entries(), 512u);
  EXPECT_EQ(eighth.memory_size(), 512u * 8);
  EXPECT_EQ(ReturnTracker(1024, 1024, 2).entries(), 1024u);
  EXPECT_EQ(ReturnTracker(1000, 1000, 2).entries(), 1024u);  // 1000 rounded up to 256 buckets
}

// Another seed follows another sample of about the same size; the same seed, the same one.
TEST(ReturnTrackerTest, ASeedChoosesTheSample) {
  const ReturnTracker usual(1024, 1024, 3), again(1024, 1024, 3, 0), other(1024, 1024, 3, 1);
  int in_usual = 0, in_other = 0, in_both = 0;
  for (uint64_t block = 0; block < 8000; ++block) {
    EXPECT_EQ(again.sampled(block), usual.sampled(block));
    in_usual += usual.sampled(block);
    in_other += other.sampled(block);
    in_both += usual.sampled(block) && other.sampled(block);
  }
  EXPECT_EQ(in_usual, 991);
  EXPECT_EQ(in_other, 1006);
  EXPECT_EQ(in_both, 137);  // about 991 x 1006 / 8000: an independent draw
}

}  // namespace
}  // namespace tiercache
