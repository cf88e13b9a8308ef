#include "policy/testing/trace_families.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace tiercache {
namespace {

constexpr uint32_t kCache = 1024;

TEST(TraceFamiliesTest, EveryFamilyIsSeededAndTwentyCachesLong) {
  ASSERT_EQ(TraceFamilies().size(), 26u);
  int targets = 0, guards = 0;
  for (const TraceFamily& family : TraceFamilies()) {
    const auto trace = family.generate(kCache, 1);
    EXPECT_EQ(trace.size(), 20u * kCache) << family.name;
    EXPECT_EQ(trace, family.generate(kCache, 1)) << family.name;
    if (!family.name.starts_with("loop")) {
      EXPECT_NE(trace, family.generate(kCache, 2)) << family.name;
    }
    EXPECT_EQ(FindTraceFamily(family.name), &family);
    targets += family.group == FamilyGroup::kTarget;
    guards += family.group == FamilyGroup::kGuard;
  }
  EXPECT_EQ(targets, 5);
  EXPECT_EQ(guards, 1);
  EXPECT_EQ(FindTraceFamily("nope"), nullptr);
}

TEST(TraceFamiliesTest, LoopsRepeatEveryOneAndAHalfCaches) {
  const auto trace = FindTraceFamily("loops")->generate(kCache, 1);
  for (size_t i = 0; i + 1536 < trace.size(); ++i) ASSERT_EQ(trace[i], trace[i + 1536]) << i;
  EXPECT_NE(trace[0], trace[1024]);
}

TEST(TraceFamiliesTest, ReadTwiceReadsEveryBlockTwiceWithinAGroup) {
  const auto trace = FindTraceFamily("read_twice")->generate(kCache, 1);
  std::map<uint64_t, std::vector<size_t>> seen;
  for (size_t i = 0; i < trace.size(); ++i) seen[trace[i]].push_back(i);
  EXPECT_EQ(seen.size(), trace.size() / 2);
  for (const auto& [block, at] : seen) {
    ASSERT_EQ(at.size(), 2u) << block;
    ASSERT_LT(at[1] - at[0], 2u * kCache / 16) << block;  // groups of C/16 blocks, read twice
  }
}

TEST(TraceFamiliesTest, BootReadsFilesOnceAndLibrariesOften) {
  const auto trace = FindTraceFamily("boot_once")->generate(kCache, 1);
  std::map<uint64_t, int> count;
  for (uint64_t block : trace) ++count[block];
  uint64_t hot_reads = 0;
  for (const auto& [block, n] : count) {
    if (block < (1ULL << 40)) {
      hot_reads += n;
      EXPECT_LT(block, kCache / 8);
    } else {
      ASSERT_EQ(n, 1) << block;  // file blocks: read once
    }
  }
  EXPECT_EQ(hot_reads, 2016u);  // about 10% of 20480
}

}  // namespace
}  // namespace tiercache
