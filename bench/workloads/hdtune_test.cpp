#include "bench/workloads/hdtune.h"

#include <gtest/gtest.h>

namespace tiercache::bench {
namespace {

using std::chrono::milliseconds;
constexpr uint64_t kMiB = 1ull << 20;

std::vector<Nanos> Ms(std::initializer_list<int> ms) {
  std::vector<Nanos> out;
  for (int m : ms) out.push_back(milliseconds(m));
  return out;
}

TEST(HdTuneTest, ReadsTheAreaLinearlyInWholeBlocksAtQueueDepthOne) {
  const HdTuneParams p{1ull << 30, 5 * kMiB + 4096, kMiB, 64};
  const Trace t = MakeHdTuneTrace(p);
  EXPECT_EQ(t.name, "hdtune");
  ASSERT_EQ(t.records.size(), 6u);
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(t.records[i].op, TraceOp::kRead) << i;
    EXPECT_EQ(t.records[i].offset, (1ull << 30) + i * kMiB) << i;
    EXPECT_EQ(t.records[i].length, i < 5 ? kMiB : 4096u) << i;
    EXPECT_EQ(t.records[i].dep, int64_t(i) - 1) << i;
    EXPECT_EQ(t.records[i].think, Nanos(0)) << i;
  }
  EXPECT_TRUE(t.validate().ok());
  // The default: 1 GiB in 1024 reads of 1 MiB.
  const Trace d = MakeHdTuneTrace(HdTuneParams{});
  ASSERT_EQ(d.records.size(), 1024u);
  EXPECT_EQ(d.records[1023].offset, 1023 * kMiB);
  EXPECT_EQ(d.bytes_read(), 1ull << 30);
}

TEST(HdTuneTest, PositionRateIsItsBytesOverTheTimeSinceThePreviousPositionEnded) {
  // 8 requests, 4 positions of 2 requests each.
  const HdTuneParams p{0, 8 * kMiB, kMiB, 4};
  const auto s = SampleHdTunePositions(p, Ms({1, 2, 4, 6, 7, 9, 10, 20}));
  ASSERT_EQ(s.size(), 4u);
  const uint64_t offsets[] = {0, 2 * kMiB, 4 * kMiB, 6 * kMiB};
  const int times_ms[] = {2, 4, 3, 11};
  for (size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(s[k].offset, offsets[k]) << k;
    EXPECT_EQ(s[k].bytes, 2 * kMiB) << k;
    EXPECT_EQ(s[k].time, milliseconds(times_ms[k])) << k;
    EXPECT_DOUBLE_EQ(s[k].mb_per_s, 2.0 * kMiB / (times_ms[k] * 1e-3) / 1e6) << k;
  }
  EXPECT_DOUBLE_EQ(s[0].mb_per_s, 1048.576);
}

TEST(HdTuneTest, UnevenSplitAndShortLastRequest) {
  // 10 requests (the last 512 KiB) in 4 positions: floor(i * 4 / 10) = 0 0 0 1 1 2 2 2 3 3.
  const HdTuneParams p{12345, 9 * kMiB + kMiB / 2, kMiB, 4};
  const auto s = SampleHdTunePositions(p, Ms({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0].offset, 0u);
  EXPECT_EQ(s[1].offset, 3 * kMiB);
  EXPECT_EQ(s[2].offset, 5 * kMiB);
  EXPECT_EQ(s[3].offset, 8 * kMiB);
  EXPECT_EQ(s[0].bytes, 3 * kMiB);
  EXPECT_EQ(s[1].bytes, 2 * kMiB);
  EXPECT_EQ(s[2].bytes, 3 * kMiB);
  EXPECT_EQ(s[3].bytes, kMiB + kMiB / 2);
  EXPECT_EQ(s[0].time, milliseconds(3));
  EXPECT_EQ(s[1].time, milliseconds(2));
  EXPECT_EQ(s[2].time, milliseconds(3));
  EXPECT_EQ(s[3].time, milliseconds(2));
  EXPECT_DOUBLE_EQ(s[3].mb_per_s, 1.5 * kMiB / 2e-3 / 1e6);
}

TEST(HdTuneTest, FewerRequestsThanPositionsGiveOnePositionPerRequest) {
  const HdTuneParams p{0, 3 * kMiB, kMiB, 64};
  const auto s = SampleHdTunePositions(p, Ms({5, 5, 8}));
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[1].offset, kMiB);
  // No time passed: no rate rather than a division by zero.
  EXPECT_EQ(s[1].time, Nanos(0));
  EXPECT_EQ(s[1].mb_per_s, 0.0);
  EXPECT_DOUBLE_EQ(s[2].mb_per_s, 1.0 * kMiB / 3e-3 / 1e6);
}

}  // namespace
}  // namespace tiercache::bench
