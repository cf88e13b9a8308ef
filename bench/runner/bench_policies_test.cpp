#include "bench/runner/bench_policies.h"

#include <gtest/gtest.h>

namespace tiercache::bench {
namespace {

TEST(BenchPoliciesTest, NothingGivenKeepsTheEngineDefaults) {
  const BenchPolicies none;
  EXPECT_FALSE(none.any());
  EXPECT_TRUE(none.daemon_args().empty());
  CacheOptions options;
  none.apply_to(&options);
  EXPECT_EQ(options.policies.admission, CacheOptions{}.policies.admission);
  EXPECT_FALSE(options.policies.sequential.has_value());
  EXPECT_EQ(options.cleaning, "target");
  EXPECT_EQ(options.cleaning_options.dirty_high, CleaningOptions{}.dirty_high);
  EXPECT_EQ(none.summary(),
            "admission default, replacement default, seq cutoff default, cleaning default");
}

BenchPolicies AllGiven() {
  BenchPolicies p;
  p.admission = "always";
  p.replacement = "lru";
  p.seq_cutoff_bytes = 0;
  p.cleaning = "nop";
  CleaningOptions& o = p.cleaning_options.emplace();
  o.dirty_target = 0.1;
  o.dirty_high = 0.3;
  o.max_dirty_age = std::chrono::milliseconds(1500);
  o.age_margin = CleaningOptions::AgeMarginFor(o.max_dirty_age);
  o.busy_share = 0.25;
  o.idle_after = std::chrono::milliseconds(20);
  return p;
}

TEST(BenchPoliciesTest, GivenOptionsGoIntoCacheOptions) {
  const BenchPolicies p = AllGiven();
  EXPECT_TRUE(p.any());
  CacheOptions options;
  p.apply_to(&options);
  EXPECT_EQ(options.policies.admission, "always");
  EXPECT_EQ(options.policies.replacement, "lru");
  ASSERT_TRUE(options.policies.sequential.has_value());
  EXPECT_FALSE(options.policies.sequential->enabled);
  EXPECT_EQ(options.cleaning, "nop");
  EXPECT_EQ(options.cleaning_options.dirty_target, 0.1);
  EXPECT_EQ(options.cleaning_options.max_dirty_age, std::chrono::milliseconds(1500));
  EXPECT_EQ(options.cleaning_options.idle_after, std::chrono::milliseconds(20));

  BenchPolicies cutoff;
  cutoff.seq_cutoff_bytes = 8 << 20;
  cutoff.apply_to(&options);
  EXPECT_TRUE(options.policies.sequential->enabled);
  EXPECT_EQ(options.policies.sequential->read_cutoff_bytes, 8u << 20);
  EXPECT_EQ(options.policies.sequential->write_cutoff_bytes, 8u << 20);
}

TEST(BenchPoliciesTest, DaemonArgsAreTiercachedFlagsThatReadBackExactly) {
  EXPECT_EQ(AllGiven().daemon_args(),
            (std::vector<std::string>{"--admission", "always", "--replacement", "lru",
                                      "--seq-cutoff", "0", "--cleaning", "nop", "--dirty-target",
                                      "0.1", "--dirty-high", "0.3", "--max-dirty-age", "1.5",
                                      "--busy-share", "0.25", "--idle-after", "0.02"}));
  EXPECT_EQ(AllGiven().summary(),
            "admission always, replacement lru, seq cutoff 0 B, cleaning nop (dirty target 10%, "
            "high 30%, max age 1.5 s, busy share 25%, idle after 0.02 s)");
}

}  // namespace
}  // namespace tiercache::bench
