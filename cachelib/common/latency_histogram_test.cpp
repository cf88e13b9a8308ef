#include "cachelib/common/latency_histogram.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace tiercache {
namespace {

using std::chrono::microseconds;
using std::chrono::nanoseconds;

TEST(LatencyHistogramTest, SamplesLandInTheFirstBucketWhoseBoundIsNotBelowThem) {
  LatencyHistogram h;
  h.record(microseconds(10));       // == 10 us: bucket 0 (le semantics)
  h.record(nanoseconds(10'001));    // just above: bucket 1
  h.record(microseconds(1'000'000));  // == 1 s: the last finite bucket
  h.record(nanoseconds(1'000'000'001));  // above 1 s: +Inf
  h.record(nanoseconds(-5));        // counts as 0
  LatencySnapshot s = h.snapshot();
  EXPECT_EQ(s.buckets[0], 2u);
  EXPECT_EQ(s.buckets[1], 1u);
  EXPECT_EQ(s.buckets[15], 1u);
  EXPECT_EQ(s.buckets[16], 1u);
  EXPECT_EQ(s.count(), 5u);
  EXPECT_EQ(s.sum_ns, 10'000u + 10'001u + 1'000'000'000u + 1'000'000'001u);
  EXPECT_EQ(s.cumulative(0), 2u);
  EXPECT_EQ(s.cumulative(1), 3u);
  EXPECT_EQ(s.cumulative(14), 3u);
  EXPECT_EQ(s.cumulative(15), 4u);
  EXPECT_EQ(s.cumulative(16), 5u);
}

TEST(LatencyHistogramTest, QuantilesInterpolateInsideTheBucket) {
  LatencyHistogram h;
  h.record(microseconds(5));   // bucket 0: [0, 10 us]
  h.record(microseconds(6));
  h.record(microseconds(75));  // bucket 3: (50, 100 us]
  h.record(microseconds(80));
  LatencySnapshot s = h.snapshot();
  // Rank 2 of 4 is the top of bucket 0.
  EXPECT_EQ(s.quantile(0.5), nanoseconds(10'000));
  // Rank 3: half way through bucket 3.
  EXPECT_EQ(s.quantile(0.75), nanoseconds(75'000));
  // Rank 3.96: 1.96 / 2 of the way from 50 to 100 us.
  EXPECT_EQ(s.quantile(0.99), nanoseconds(99'000));
  EXPECT_EQ(s.quantile(1.0), nanoseconds(100'000));
  // Rank 1: half of bucket 0.
  EXPECT_EQ(s.quantile(0.25), nanoseconds(5'000));
}

TEST(LatencyHistogramTest, QuantileOfEmptyIsZeroAndOfInfIsTheLastBound) {
  LatencyHistogram h;
  EXPECT_EQ(h.snapshot().quantile(0.5), nanoseconds(0));
  h.record(std::chrono::seconds(2));
  EXPECT_EQ(h.snapshot().quantile(0.5), nanoseconds(1'000'000'000));
}

TEST(LatencyHistogramTest, SinceSubtractsPerBucket) {
  LatencyHistogram h;
  h.record(microseconds(30));  // bucket 2
  LatencySnapshot before = h.snapshot();
  h.record(microseconds(30));
  h.record(microseconds(700));  // bucket 6: (500 us, 1 ms]
  LatencySnapshot delta = h.snapshot().since(before);
  EXPECT_EQ(delta.buckets[2], 1u);
  EXPECT_EQ(delta.buckets[6], 1u);
  EXPECT_EQ(delta.count(), 2u);
  EXPECT_EQ(delta.sum_ns, 730'000u);
  // A counter that went down (another daemon) gives 0, not a wrap-around.
  EXPECT_EQ(before.since(h.snapshot()).count(), 0u);
  EXPECT_EQ(before.since(h.snapshot()).sum_ns, 0u);
}

TEST(LatencyHistogramTest, ConcurrentRecordsAllCount) {
  LatencyHistogram h;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&h, t] {
      for (int i = 0; i < 10'000; ++i) h.record(microseconds(t == 0 ? 1 : 2'000));
    });
  }
  for (auto& thread : threads) thread.join();
  LatencySnapshot s = h.snapshot();
  EXPECT_EQ(s.count(), 40'000u);
  EXPECT_EQ(s.buckets[0], 10'000u);
  EXPECT_EQ(s.buckets[7], 30'000u);  // 2 ms: (1, 2.5 ms]
  EXPECT_EQ(s.sum_ns, 10'000ull * 1'000 + 30'000ull * 2'000'000);
}

}  // namespace
}  // namespace tiercache
