// LatencyHistogram: request latencies counted in fixed buckets from 10 us to 1 s, Prometheus
// style (a sample lands in the first bucket whose upper bound "le" is >= it; the last bucket is
// +Inf). Lock-free: relaxed atomics, so any thread records while another takes a snapshot; a
// snapshot is consistent per bucket, and its count is the sum of its buckets. Owned by its user.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "cachelib/common/clock.h"

namespace tiercache {

// Upper bounds of the finite buckets, in nanoseconds: 10, 25, 50 ... 500 us, 1 ms ... 1 s.
inline constexpr std::array<int64_t, 16> kLatencyBucketBoundsNs = {
    10'000,     25'000,     50'000,     100'000,     250'000,     500'000,
    1'000'000,  2'500'000,  5'000'000,  10'000'000,  25'000'000,  50'000'000,
    100'000'000, 250'000'000, 500'000'000, 1'000'000'000};
// The finite buckets and the +Inf one.
inline constexpr size_t kLatencyBuckets = kLatencyBucketBoundsNs.size() + 1;

// A histogram's counts at one moment; a plain value.
struct LatencySnapshot {
  std::array<uint64_t, kLatencyBuckets> buckets{};  // samples per bucket (not cumulative)
  uint64_t sum_ns = 0;                              // sum of all samples

  uint64_t count() const;
  // Samples <= the upper bound of bucket i (Prometheus' cumulative "le" count); i in [0, 16].
  uint64_t cumulative(size_t i) const;
  // The q-quantile (0 < q <= 1) estimated as Prometheus' histogram_quantile does: linear
  // interpolation inside the bucket holding rank q * count (the first bucket starts at 0); 1 s if
  // that is the +Inf bucket; 0 without samples.
  Nanos quantile(double q) const;
  // What was recorded between `earlier` and this snapshot of the same histogram.
  LatencySnapshot since(const LatencySnapshot& earlier) const;
};

class LatencyHistogram {
 public:
  // Counts one sample; negative latencies count as 0.
  void record(Nanos latency);
  LatencySnapshot snapshot() const;

 private:
  std::array<std::atomic<uint64_t>, kLatencyBuckets> buckets_{};
  std::atomic<uint64_t> sum_ns_{0};
};

}  // namespace tiercache
