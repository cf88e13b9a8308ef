#include "policy/admission/admission_factory.h"

#include <gtest/gtest.h>

#include <string>

#include "policy/admission/adaptive_admission.h"

namespace tiercache {
namespace {

TEST(AdmissionFactoryTest, BuildsEveryNamedPolicy) {
  ASSERT_EQ(AdmissionPolicyNames(),
            (std::vector<std::string_view>{"always", "nhit", "adaptive"}));
  for (std::string_view name : AdmissionPolicyNames()) {
    AdmissionOptions options;
    options.name = std::string(name);
    auto policy = MakeAdmissionPolicy(options, 1024);
    ASSERT_TRUE(policy.ok()) << name;
    EXPECT_EQ(std::string_view((*policy)->name()), name);
  }
  auto standard = MakeAdmissionPolicy(AdmissionOptions{}, 1024);
  ASSERT_TRUE(standard.ok());
  EXPECT_EQ(std::string_view((*standard)->name()), "adaptive");
}

// Only `always` admits every miss; an unknown name refuses nothing either.
TEST(AdmissionFactoryTest, SaysWhichPoliciesRefuseMisses) {
  EXPECT_FALSE(AdmissionRefusesMisses("always"));
  EXPECT_TRUE(AdmissionRefusesMisses("nhit"));
  EXPECT_TRUE(AdmissionRefusesMisses("adaptive"));
  EXPECT_FALSE(AdmissionRefusesMisses("lru"));
}

TEST(AdmissionFactoryTest, OptionsReachThePolicies) {
  AdmissionOptions options;
  options.name = "nhit";
  options.nhit_threshold = 1;  // admits on the first miss even past the trigger
  auto nhit = MakeAdmissionPolicy(options, 64);
  ASSERT_TRUE(nhit.ok());
  EXPECT_TRUE((*nhit)->admit(AdmissionQuery{9, false, 64, 64}));
  options.nhit_window = 4096;  // the sketch is sized by the window, not the shard
  auto windowed = MakeAdmissionPolicy(options, 1u << 16);
  ASSERT_TRUE(windowed.ok());
  EXPECT_EQ((*windowed)->memory_size(), 4096u);

  options = AdmissionOptions{};
  options.adaptive_probe_interval = 1;  // every refusal becomes a probe: all admitted
  auto adaptive = MakeAdmissionPolicy(options, 64);
  ASSERT_TRUE(adaptive.ok());
  for (uint64_t block = 0; block < 200; ++block) {
    EXPECT_TRUE((*adaptive)->admit(AdmissionQuery{block, false, 64, 64}));
  }

  // The further knobs come after the three above: the bar is the eviction prior 0.25 plus the
  // margin, 0.05 by default.
  options = AdmissionOptions{};
  options.adaptive_knobs = {"margin=0.5", "eviction_prior=0.125"};
  auto tuned = MakeAdmissionPolicy(options, 64);
  ASSERT_TRUE(tuned.ok());
  EXPECT_DOUBLE_EQ(dynamic_cast<const AdaptiveAdmission&>(**tuned).bar(), 0.625);
  auto standard = MakeAdmissionPolicy(AdmissionOptions{}, 64);
  EXPECT_DOUBLE_EQ(dynamic_cast<const AdaptiveAdmission&>(**standard).bar(), 0.3);
}

// The cache's SurgeBoard reaches `adaptive`: it publishes its rates in its slot, and the slot
// counts in its memory.
TEST(AdmissionFactoryTest, AdaptiveJudgesSurgesOnTheBoardItIsGiven) {
  SurgeBoard board(2);
  auto alone = MakeAdmissionPolicy(AdmissionOptions{}, 1024);
  auto shard = MakeAdmissionPolicy(AdmissionOptions{}, 1024, SurgeSlot{&board, 1});
  ASSERT_TRUE(alone.ok());
  ASSERT_TRUE(shard.ok());
  EXPECT_EQ((*shard)->memory_size(), (*alone)->memory_size() + SurgeBoard::kSlotBytes);
  EXPECT_EQ(board.mean().fast, 0.0);
  (*shard)->admit(AdmissionQuery{9, false, 0, 1024});  // a new block at its first access
  EXPECT_DOUBLE_EQ(board.mean().fast, 0.5);  // slot 1 reads 1 new block per access, slot 0 none
}

TEST(AdmissionFactoryTest, RejectsBadOptions) {
  AdmissionOptions options;
  options.name = "lfu";
  auto unknown = MakeAdmissionPolicy(options, 1024);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(unknown.status().message(), "unknown admission policy 'lfu' (always, nhit, adaptive)");

  const struct {
    void (*spoil)(AdmissionOptions&);
    const char* message;
  } cases[] = {
      {[](AdmissionOptions& o) { o.nhit_threshold = 0; }, "nhit_threshold: must be >= 1"},
      {[](AdmissionOptions& o) { o.nhit_trigger = 1.5; }, "nhit_trigger: must be in [0, 1]"},
      {[](AdmissionOptions& o) { o.adaptive_min_return = 0; },
       "adaptive_min_return: must be in (0, 1]"},
      {[](AdmissionOptions& o) { o.adaptive_window = 0; }, "adaptive_window: must be in (0, 64]"},
      {[](AdmissionOptions& o) { o.adaptive_knobs = {"margin=0.1", "window=-1"}; },
       "adaptive_knobs: 'window=-1': must be in (0, 64]"},
  };
  for (const auto& c : cases) {
    AdmissionOptions bad;
    c.spoil(bad);
    EXPECT_EQ(bad.validate().message(), c.message);
    auto made = MakeAdmissionPolicy(bad, 1024);
    ASSERT_FALSE(made.ok());
    EXPECT_EQ(made.status().message(), c.message);
  }
  auto no_slots = MakeAdmissionPolicy(AdmissionOptions{}, 0);
  ASSERT_FALSE(no_slots.ok());
  EXPECT_EQ(no_slots.status().message(), "capacity_slots: must be >= 1");
  EXPECT_TRUE(AdmissionOptions{}.validate().ok());
}

}  // namespace
}  // namespace tiercache
