#include "cachelib/common/latency_histogram.h"

#include <algorithm>
#include <cmath>

namespace tiercache {

uint64_t LatencySnapshot::count() const { return cumulative(kLatencyBuckets - 1); }

uint64_t LatencySnapshot::cumulative(size_t i) const {
  uint64_t total = 0;
  for (size_t b = 0; b <= i && b < kLatencyBuckets; ++b) total += buckets[b];
  return total;
}

Nanos LatencySnapshot::quantile(double q) const {
  const uint64_t total = count();
  if (total == 0) return Nanos(0);
  const double rank = q * double(total);
  uint64_t below = 0;  // samples in the buckets before i
  for (size_t i = 0; i < kLatencyBucketBoundsNs.size(); ++i) {
    if (buckets[i] != 0 && double(below + buckets[i]) >= rank) {
      const double lower = i == 0 ? 0.0 : double(kLatencyBucketBoundsNs[i - 1]);
      const double upper = double(kLatencyBucketBoundsNs[i]);
      const double inside = std::max(0.0, rank - double(below)) / double(buckets[i]);
      return Nanos(std::llround(lower + (upper - lower) * inside));
    }
    below += buckets[i];
  }
  return Nanos(kLatencyBucketBoundsNs.back());
}

LatencySnapshot LatencySnapshot::since(const LatencySnapshot& earlier) const {
  // Counters only grow; a smaller value means another histogram (a restarted daemon): keep 0.
  auto minus = [](uint64_t now, uint64_t then) { return now >= then ? now - then : 0; };
  LatencySnapshot delta;
  for (size_t i = 0; i < kLatencyBuckets; ++i) delta.buckets[i] = minus(buckets[i], earlier.buckets[i]);
  delta.sum_ns = minus(sum_ns, earlier.sum_ns);
  return delta;
}

void LatencyHistogram::record(Nanos latency) {
  const int64_t ns = std::max<int64_t>(0, latency.count());
  const size_t i = size_t(std::lower_bound(kLatencyBucketBoundsNs.begin(),
                                           kLatencyBucketBoundsNs.end(), ns) -
                          kLatencyBucketBoundsNs.begin());
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
  sum_ns_.fetch_add(uint64_t(ns), std::memory_order_relaxed);
}

LatencySnapshot LatencyHistogram::snapshot() const {
  LatencySnapshot s;
  for (size_t i = 0; i < kLatencyBuckets; ++i) s.buckets[i] = buckets_[i].load(std::memory_order_relaxed);
  s.sum_ns = sum_ns_.load(std::memory_order_relaxed);
  return s;
}

}  // namespace tiercache
