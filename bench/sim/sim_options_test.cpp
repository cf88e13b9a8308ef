// SimOptions and SimCase: validation (the engine's words for unknown policies), the cases a run
// expands to, the SSD sizing, and trace specs.
#include "bench/sim/sim_options.h"

#include <gtest/gtest.h>

namespace tiercache::bench {
namespace {

SimOptions Valid() {
  SimOptions o;
  o.traces = {{"a", "msr", "a.csv"}};
  o.cache_bytes = {1 << 20};
  return o;
}

TEST(SimOptionsTest, DefaultsAreTheEnginesCreateTimePolicies) {
  const SimOptions o = Valid();
  ASSERT_TRUE(o.validate().ok());
  const std::vector<SimCase> cases = o.cases();
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_EQ(cases[0].policies(), PolicyOptions{});
  EXPECT_TRUE(cases[0].is_default_policy());
  EXPECT_EQ(cases[0].shards, CacheOptions{}.shards);
  EXPECT_EQ(cases[0].mode, CacheMode::kWriteThrough);
}

TEST(SimOptionsTest, UnknownPolicyGetsTheEnginesMessage) {
  SimOptions o = Valid();
  o.replacements = {"lru", "mru"};
  PolicyOptions engine;
  engine.replacement = "mru";
  EXPECT_EQ(o.validate().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(o.validate().message(), engine.validate().message());
  o = Valid();
  o.admissions = {"sometimes"};
  engine = PolicyOptions{};
  engine.admission = "sometimes";
  EXPECT_EQ(o.validate().message(), engine.validate().message());
}

TEST(SimOptionsTest, BadSizesAndListsAreRefused) {
  SimOptions o = Valid();
  o.cache_bytes = {1 << 20, (1 << 20) + 512};
  EXPECT_EQ(o.validate().message(), "cache size 1049088 is not a multiple of 4096 bytes");
  o.cache_bytes = {15 * 4096};
  EXPECT_EQ(o.validate().message(),
            "cache size 61440 is below the minimum of 65536 bytes (16 lines)");
  o = Valid();
  o.cache_bytes.clear();
  EXPECT_EQ(o.validate().message(), "cache_bytes: give at least one size");
  o = Valid();
  o.traces.push_back({"a", "fio", "b/a.log"});
  EXPECT_EQ(o.validate().message(), "traces: two traces are named 'a' (use NAME=FORMAT:FILE)");
  o = Valid();
  o.shards = 0;
  EXPECT_EQ(o.validate().message(), "shards must be >= 1");
}

TEST(SimOptionsTest, CasesBySizeThenAdmissionThenReplacement) {
  SimOptions o = Valid();
  o.cache_bytes = {4 << 20, 1 << 20, 4 << 20};
  o.replacements = {"lru", "sieve", "lru"};
  std::vector<std::string> got;
  for (const SimCase& c : o.cases()) got.push_back(std::to_string(c.cache_bytes) + " " + c.combo());
  EXPECT_EQ(got, (std::vector<std::string>{"1048576 adaptive/lru", "1048576 adaptive/sieve",
                                           "4194304 adaptive/lru", "4194304 adaptive/sieve"}));
}

TEST(SimCaseTest, SsdHoldsExactlyTheCacheSizeInLines) {
  for (uint64_t bytes : {uint64_t{16} * 4096, uint64_t{1} << 30, uint64_t{16} << 30}) {
    const format::Layout l = SimSsdLayout(bytes);
    EXPECT_EQ(l.line_count, bytes / 4096);
    EXPECT_EQ(l.required_size(), l.data_offset + bytes);
    // One byte less and a line no longer fits.
    EXPECT_EQ(format::LayoutForSsd(l.required_size() - 1, 4096).line_count, bytes / 4096 - 1);
  }
}

TEST(SimTraceSpecTest, Parses) {
  Result<SimTraceSpec> s = ParseSimTraceSpec("msr:/tmp/f/hotset.csv");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->name, "hotset");
  EXPECT_EQ(s->format, "msr");
  EXPECT_EQ(s->file, "/tmp/f/hotset.csv");
  s = ParseSimTraceSpec("app=fio:bench/traces/a=b.iolog");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->name, "app");
  EXPECT_EQ(s->file, "bench/traces/a=b.iolog");
  EXPECT_EQ(ParseSimTraceSpec("csv:x.csv").status().message(),
            "trace 'csv:x.csv': unknown format 'csv' (blkparse, fio, msr)");
  EXPECT_EQ(ParseSimTraceSpec("x.csv").status().message(),
            "trace 'x.csv': expected [NAME=]FORMAT:FILE");
}

}  // namespace
}  // namespace tiercache::bench
