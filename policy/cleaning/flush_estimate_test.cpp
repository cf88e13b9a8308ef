#include "policy/cleaning/flush_estimate.h"

#include <gtest/gtest.h>

namespace tiercache {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kGiB = uint64_t{1} << 30;

TEST(FlushEstimateTest, DirtyBytesOverRate) {
  // 1 GiB at 100 MiB/s: 1024 / 100 s = 10.24 s.
  EXPECT_EQ(EstimateFlushTime(kGiB, 100 * kMiB), Nanos(10'240'000'000));
  // 1 byte at 3 B/s: 333,333,333.3 ns, rounded up.
  EXPECT_EQ(EstimateFlushTime(1, 3), Nanos(333'333'334));
  // 1 TiB at 150 MB/s: 1,099,511,627,776 / 150e6 s = 7330.0775 s (needs 128-bit arithmetic).
  EXPECT_EQ(EstimateFlushTime(1024 * kGiB, 150'000'000), Nanos(7'330'077'518'507));
}

TEST(FlushEstimateTest, NothingDirtyUnknownRateAndOverflow) {
  EXPECT_EQ(EstimateFlushTime(0, 0), Nanos(0));
  EXPECT_EQ(EstimateFlushTime(0, 100 * kMiB), Nanos(0));
  EXPECT_EQ(EstimateFlushTime(4096, 0), Nanos::max());
  EXPECT_EQ(EstimateFlushTime(~uint64_t{0}, 1), Nanos::max());  // 1.8e28 ns does not fit
}

}  // namespace
}  // namespace tiercache
