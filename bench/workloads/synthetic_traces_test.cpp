#include "bench/workloads/synthetic_traces.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace tiercache::bench {
namespace {

// A read is sequential when it starts where one of the previous 8 requests ended.
double SequentialShare(const Trace& t) {
  uint64_t seq = 0, reads = 0;
  for (size_t i = 0; i < t.records.size(); ++i) {
    if (t.records[i].op != TraceOp::kRead) continue;
    ++reads;
    for (size_t k = i >= 8 ? i - 8 : 0; k < i; ++k) {
      if (t.records[k].offset + t.records[k].length == t.records[i].offset) {
        ++seq;
        break;
      }
    }
  }
  return reads ? double(seq) / reads : 0;
}

TEST(SyntheticTracesTest, BootReadsAFewHundredMegabytesWithFewWrites) {
  auto t = GenerateBootTrace({}, 1);
  ASSERT_TRUE(t.validate().ok());
  EXPECT_EQ(t.name, "boot");
  const double mib = double(t.bytes_read()) / (1 << 20);
  EXPECT_GT(mib, 250);  // 48 MiB kernel + 200 MiB files + 6000 x 4 KiB
  EXPECT_LT(mib, 300);
  uint64_t small = 0;
  for (const auto& r : t.records) small += r.op == TraceOp::kRead && r.length == 4096;
  EXPECT_GE(small, 6000u);
  const double writes = double(t.count(TraceOp::kWrite)) / t.records.size();
  EXPECT_NEAR(writes, 0.03, 0.005);
  EXPECT_LT(t.end_offset(), 32ull << 30);
  EXPECT_EQ(t.records, GenerateBootTrace({}, 1).records);
  EXPECT_NE(t.records, GenerateBootTrace({}, 2).records);
  BootTraceParams half;
  half.scale = 0.5;
  EXPECT_NEAR(double(GenerateBootTrace(half, 1).bytes_read()), double(t.bytes_read()) / 2,
              0.05 * t.bytes_read());
}

TEST(SyntheticTracesTest, AppLaunchIs63To1ReadsAndMostlyRandom) {
  auto t = GenerateAppLaunchTrace({}, 1);
  ASSERT_TRUE(t.validate().ok());
  const double reads = double(t.count(TraceOp::kRead));
  const double writes = double(t.count(TraceOp::kWrite));
  EXPECT_EQ(reads + writes, 5.0 * 1200);
  EXPECT_NEAR(reads / writes, 63, 12);
  EXPECT_NEAR(1.0 - SequentialShare(t), 0.86, 0.03);
  // Apps start one after another: each app's first request depends on the previous app.
  uint64_t chained = 0;
  for (const auto& r : t.records) chained += r.dep >= 0;
  EXPECT_GT(chained, t.records.size() - 5 * 2 - 1);
}

TEST(SyntheticTracesTest, GameLoadIsRandomByCountSequentialByBytes) {
  auto t = GenerateGameLoadTrace({}, 1);
  ASSERT_TRUE(t.validate().ok());
  uint64_t small = 0, big = 0, big_bytes = 0;
  for (const auto& r : t.records) {
    if (r.op != TraceOp::kRead) continue;
    if (r.length >= (1 << 20)) {
      ++big;
      big_bytes += r.length;
    } else {
      ++small;
    }
  }
  EXPECT_GT(small, 3 * big);
  EXPECT_GT(double(big_bytes) / t.bytes_read(), 0.9);
  EXPECT_NEAR(double(t.bytes_read()) / (1 << 20), 400 + 1500 * 10.0 / 1024, 30);
  EXPECT_EQ(t.count(TraceOp::kWrite), 12u);
}

}  // namespace
}  // namespace tiercache::bench
