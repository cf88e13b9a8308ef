// AdaptiveTuning: every knob sets its field, and a bad assignment leaves the parameters unchanged
// with an error naming it.
#include "policy/admission/adaptive_tuning.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tiercache {
namespace {

using Params = AdaptiveAdmission::Params;

TEST(AdaptiveTuningTest, AKnobSetsItsField) {
  Params p;
  ASSERT_TRUE(ApplyAdaptiveKnob("margin=0.08", p).ok());
  EXPECT_DOUBLE_EQ(p.margin, 0.08);
  ASSERT_TRUE(ApplyAdaptiveKnob("surge_end_ratio=1.25", p).ok());
  EXPECT_DOUBLE_EQ(p.surge.end_ratio, 1.25);
  ASSERT_TRUE(ApplyAdaptiveKnob("recurring_min_share=0.125", p).ok());
  EXPECT_DOUBLE_EQ(p.recurring_params.min_share, 0.125);
  ASSERT_TRUE(ApplyAdaptiveKnob("probe_interval=64", p).ok());
  EXPECT_EQ(p.probe_interval, 64u);
  ASSERT_TRUE(ApplyAdaptiveKnob("sample_shift=-1", p).ok());
  EXPECT_EQ(p.sample_shift, -1);
  ASSERT_TRUE(ApplyAdaptiveKnob("sample_seed=3", p).ok());
  EXPECT_EQ(p.sample_seed, 3u);
  ASSERT_TRUE(ApplyAdaptiveKnob("surge_warm=0", p).ok());
  EXPECT_FALSE(p.surge_warm);
  ASSERT_TRUE(ApplyAdaptiveKnob("surge_max_level=0", p).ok());
  EXPECT_EQ(p.surge_max_level, 0);
  ASSERT_TRUE(ApplyAdaptiveKnob("young_bar=1e-1", p).ok());
  EXPECT_DOUBLE_EQ(p.young_bar, 0.1);
}

// Each knob sets a field of its own: set to 7 (the flags, on by default, to 0), every knob's
// parameters differ from the defaults and from every other knob's.
TEST(AdaptiveTuningTest, EveryKnobSetsAFieldOfItsOwn) {
  const std::vector<std::string_view> names = AdaptiveKnobNames();
  EXPECT_EQ(names.size(), 34u);
  std::vector<Params> set;
  for (std::string_view name : names) {
    const bool flag = name == "recurring" || name == "surge_warm";
    const bool level = name == "surge_max_level";  // 0-4
    const std::string assignment = std::string(name) + (flag ? "=0" : level ? "=3" : "=7");
    ASSERT_TRUE(ApplyAdaptiveKnob(assignment, set.emplace_back()).ok()) << assignment;
    EXPECT_NE(set.back(), Params{}) << assignment;
  }
  for (size_t i = 0; i < set.size(); ++i) {
    for (size_t j = 0; j < i; ++j) EXPECT_NE(set[i], set[j]) << names[i] << " " << names[j];
  }
}

TEST(AdaptiveTuningTest, BadAssignmentsAreNamed) {
  Params p;
  const struct {
    const char* assignment;
    const char* message;
  } cases[] = {
      {"margin", "'margin': want KNOB=VALUE"},
      {"margin=", "'margin=': the value is not a number"},
      {"margin=0.1x", "'margin=0.1x': the value is not a number"},
      {"margin=-0.1", "'margin=-0.1': must be in [0, 1000000]"},
      {"miss_halving=1e30", "'miss_halving=1e30': must be in [0, 1000000]"},
      {"window=0", "'window=0': must be in (0, 64]"},
      {"frequency_keys=65", "'frequency_keys=65': must be in (0, 64]"},
      {"ghost=1e9", "'ghost=1e9': must be in [0, 64]"},
      {"recurring_span=100", "'recurring_span=100': must be in [0, 64]"},
      {"surge_warm=2", "'surge_warm=2': want 0 or 1"},
      {"sample_shift=1.5", "'sample_shift=1.5': want -1 (automatic) or a whole number 0-30"},
      {"sample_shift=-2", "'sample_shift=-2': want -1 (automatic) or a whole number 0-30"},
      {"probe_interval=1e10", "'probe_interval=1e10': want a whole number 0-4294967295"},
      {"surge_max_level=5", "'surge_max_level=5': want a whole number 0-4"},
      {"surge_max_level=0.5", "'surge_max_level=0.5': want a whole number 0-4"},
      {"margin=inf", "'margin=inf': the value is not a number"},
  };
  for (const auto& c : cases) {
    const Status s = ApplyAdaptiveKnob(c.assignment, p);
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << c.assignment;
    EXPECT_EQ(s.message(), c.message);
  }
  const Status unknown = ApplyAdaptiveKnob("marg=1", p);
  EXPECT_EQ(unknown.message().rfind("'marg=1': unknown adaptive knob (known: window, min_return, "
                                    "margin, pending_weight, ",
                                    0),
            0u)
      << unknown.message();
  EXPECT_NE(unknown.message().find(", young_ratio)"), std::string::npos) << unknown.message();
  EXPECT_EQ(p, Params{});  // nothing was set
}

TEST(AdaptiveTuningTest, AListStopsAtItsFirstBadKnobAndChangesNothing) {
  Params p;
  const Status s = ApplyAdaptiveKnobs({"margin=0.2", "bogus=1", "young_bar=0"}, p);
  EXPECT_EQ(s.message().rfind("'bogus=1': unknown adaptive knob", 0), 0u) << s.message();
  EXPECT_DOUBLE_EQ(p.margin, Params{}.margin);
  ASSERT_TRUE(ApplyAdaptiveKnobs({"margin=0.2", "young_bar=0"}, p).ok());
  EXPECT_DOUBLE_EQ(p.margin, 0.2);
  EXPECT_DOUBLE_EQ(p.young_bar, 0);
}

}  // namespace
}  // namespace tiercache
