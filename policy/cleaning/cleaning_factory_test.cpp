#include "policy/cleaning/cleaning_factory.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "policy/cleaning/nop_cleaning_policy.h"

namespace tiercache {
namespace {

using std::chrono::seconds;

std::map<std::string, uint64_t> Counters(const CleaningPolicy& p) {
  std::map<std::string, uint64_t> out;
  p.visit_counters([&](std::string_view n, uint64_t v) { out[std::string(n)] = v; });
  return out;
}

TEST(CleaningFactoryTest, BuildsByName) {
  auto target = MakeCleaningPolicy(kDefaultCleaningPolicy, CleaningOptions{});
  ASSERT_TRUE(target.ok());
  EXPECT_STREQ((*target)->name(), "target");
  auto nop = MakeCleaningPolicy("nop", CleaningOptions{});
  ASSERT_TRUE(nop.ok());
  EXPECT_STREQ((*nop)->name(), "nop");
}

TEST(CleaningFactoryTest, RejectsUnknownNamesAndBadOptions) {
  auto unknown = MakeCleaningPolicy("alru", CleaningOptions{});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(unknown.status().message(), "unknown cleaning policy 'alru' (known: target, nop)");
  CleaningOptions bad;
  bad.busy_share = 0;
  auto invalid = MakeCleaningPolicy("nop", bad);
  ASSERT_FALSE(invalid.ok());
  EXPECT_EQ(invalid.status().message(), "busy_share must be in (0, 1]");
}

TEST(NopCleaningPolicyTest, CleansOnlyWhenAskedToDrain) {
  NopCleaningPolicy nop(1024);
  CleaningInputs in;
  in.now = seconds(100);
  in.total_blocks = 1000;
  in.dirty_blocks = 1000;                 // full of dirty data
  in.oldest_dirty_age = seconds(3600);    // an hour old
  in.since_foreground = Nanos::max();     // idle forever
  EXPECT_EQ(nop.plan(in), CleaningPlan{});  // no clean, no timer, no threshold
  in.drain_requested = true;
  CleaningPlan drain = nop.plan(in);
  EXPECT_TRUE(drain.clean_now);
  EXPECT_EQ(drain.max_blocks, 1024u);
  EXPECT_EQ(drain.order, CleaningOrder::kLba);
  EXPECT_EQ(drain.reason, CleaningReason::kDrain);
  in.dirty_blocks = 0;  // drained: nothing more to clean
  EXPECT_EQ(nop.plan(in), CleaningPlan{});
  auto c = Counters(nop);
  EXPECT_EQ(c["cleaning_batches_drain"], 1u);
  EXPECT_EQ(c["cleaning_waits"], 2u);
  EXPECT_EQ(c["cleaning_batches_idle"], 0u);
  EXPECT_EQ(nop.memory_size(), 0u);
}

TEST(NopCleaningPolicyTest, FactoryUsesTheIdleBatchForDrains) {
  CleaningOptions o;
  o.idle_batch_blocks = 4096;
  auto nop = MakeCleaningPolicy("nop", o);
  ASSERT_TRUE(nop.ok());
  CleaningInputs in;
  in.dirty_blocks = 1;
  in.drain_requested = true;
  EXPECT_EQ((*nop)->plan(in).max_blocks, 4096u);
}

}  // namespace
}  // namespace tiercache
