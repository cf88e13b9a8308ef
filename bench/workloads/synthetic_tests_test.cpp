#include "bench/workloads/synthetic_tests.h"

#include <gtest/gtest.h>

#include <set>

namespace tiercache::bench {
namespace {

TEST(SyntheticTestsTest, ParsesCrystalDiskMarkAndAsSsdNames) {
  auto t = ParseSyntheticTest("cdm:SEQ1M-Q8T1-read");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t, (SyntheticTest{"cdm:SEQ1M-Q8T1-read", true, 1 << 20, 8, 1, false}));
  EXPECT_EQ(ParseSyntheticTest("cdm-large:RND4K-Q32T16-write").value(),
            (SyntheticTest{"cdm-large:RND4K-Q32T16-write", false, 4096, 32, 16, true}));
  EXPECT_EQ(ParseSyntheticTest("asssd:4K-64Thrd-read").value(),
            (SyntheticTest{"asssd:4K-64Thrd-read", false, 4096, 1, 64, false}));
  for (const char* bad : {"SEQ1M-Q8T1-read", "cdm:SEQ1M-Q8T1", "cdm:SEQ1G-Q8T1-read",
                          "cdm:RND4K-Q0T1-read", "cdm:XYZ4K-Q1T1-read", "cdm:RND4K-Q1T1-erase"}) {
    EXPECT_EQ(ParseSyntheticTest(bad).status().code(), Status::Code::kInvalidArgument) << bad;
  }
}

TEST(SyntheticTestsTest, DefaultProfileNames) {
  std::vector<std::string> names;
  for (const auto& t : CrystalDiskMarkTests()) names.push_back(t.name);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "cdm:SEQ1M-Q8T1-read", "cdm:SEQ1M-Q8T1-write", "cdm:SEQ1M-Q1T1-read",
                       "cdm:SEQ1M-Q1T1-write", "cdm:RND4K-Q32T1-read", "cdm:RND4K-Q32T1-write",
                       "cdm:RND4K-Q1T1-read", "cdm:RND4K-Q1T1-write"}));
  EXPECT_EQ(AsSsdTests()[1].name, "asssd:4K-64Thrd-write");
}

TEST(SyntheticTestsTest, SequentialWalksTheAreaAtItsQueueDepth) {
  SyntheticArea area{1ull << 30, 64ull << 20, 100, 0};
  auto t = MakeSyntheticTrace(ParseSyntheticTest("cdm:SEQ1M-Q8T1-write").value(), area, 1, 1);
  ASSERT_EQ(t.records.size(), 64u);
  for (size_t i = 0; i < 64; ++i) {
    EXPECT_EQ(t.records[i].op, TraceOp::kWrite);
    EXPECT_EQ(t.records[i].offset, (1ull << 30) + i * (1 << 20));
    EXPECT_EQ(t.records[i].length, 1u << 20);
    EXPECT_EQ(t.records[i].dep, i >= 8 ? int64_t(i - 8) : -1);
  }
}

TEST(SyntheticTestsTest, RandomOffsetsStayInTheAreaAndDifferPerPass) {
  SyntheticArea area{4096, 16ull << 20, 5000, 0};
  const auto test = ParseSyntheticTest("cdm:RND4K-Q32T1-read").value();
  auto p1 = MakeSyntheticTrace(test, area, 7, 1);
  auto p1again = MakeSyntheticTrace(test, area, 7, 1);
  auto p2 = MakeSyntheticTrace(test, area, 7, 2);
  EXPECT_EQ(p1.records, p1again.records);
  EXPECT_NE(p1.records, p2.records);
  std::set<uint64_t> distinct;
  for (const auto& r : p1.records) {
    EXPECT_GE(r.offset, 4096u);
    EXPECT_LT(r.offset, 4096u + (16 << 20));
    EXPECT_EQ((r.offset - 4096) % 4096, 0u);
    distinct.insert(r.offset);
  }
  // 5000 uniform draws from 4096 blocks hit 4096 * (1 - e^(-5000/4096)) = 2888 distinct ones.
  EXPECT_GT(distinct.size(), 2750u);
  EXPECT_LT(distinct.size(), 3030u);
  EXPECT_EQ(p1.records[32].dep, 0);
}

TEST(SyntheticTestsTest, PreparationWritesTheWholeArea) {
  auto t = MakePreparationTrace(SyntheticArea{8192, (3ull << 20) + 4096, 0, 0});
  ASSERT_EQ(t.records.size(), 4u);
  EXPECT_EQ(t.records[3].offset, 8192u + (3 << 20));
  EXPECT_EQ(t.records[3].length, 4096u);
  EXPECT_EQ(t.bytes_written(), (3ull << 20) + 4096);
}

}  // namespace
}  // namespace tiercache::bench
