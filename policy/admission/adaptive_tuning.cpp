#include "policy/admission/adaptive_tuning.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>

namespace tiercache {
namespace {

using Params = AdaptiveAdmission::Params;

// The values that keep the policy well defined: shares, periods and ratios are >= 0 (a period
// of 0 accesses is 1: CapacityScaled); a window or table size must be > 0.
enum class Range { kNonNegative, kPositive, kFlag, kSampleShift, kCount };

using enum Range;

struct Knob {
  std::string_view name;
  Range range;
  void (*set)(Params&, double);
};

// One line per field; a lambda without captures converts to the function pointer.
constexpr std::array<Knob, 31> kKnobs = {{
    {"window", kPositive, [](Params& p, double v) { p.window = v; }},
    {"min_return", kNonNegative, [](Params& p, double v) { p.min_return = v; }},
    {"margin", kNonNegative, [](Params& p, double v) { p.margin = v; }},
    {"pending_weight", kNonNegative, [](Params& p, double v) { p.pending_weight = v; }},
    {"eviction_prior", kNonNegative, [](Params& p, double v) { p.eviction_prior = v; }},
    {"probe_interval", kCount,
     [](Params& p, double v) { p.probe_interval = static_cast<uint32_t>(v); }},
    {"miss_halving", kNonNegative, [](Params& p, double v) { p.miss_halving = v; }},
    {"eviction_halving", kNonNegative, [](Params& p, double v) { p.eviction_halving = v; }},
    {"frequency_halving", kNonNegative, [](Params& p, double v) { p.frequency_halving = v; }},
    {"frequency_keys", kPositive, [](Params& p, double v) { p.frequency_keys = v; }},
    {"ghost", kNonNegative, [](Params& p, double v) { p.ghost = v; }},
    {"sample_shift", kSampleShift,
     [](Params& p, double v) { p.sample_shift = static_cast<int>(v); }},
    {"recurring", kFlag, [](Params& p, double v) { p.recurring = v != 0; }},
    {"recurring_span", kNonNegative, [](Params& p, double v) { p.recurring_params.span = v; }},
    {"recurring_entries", kPositive, [](Params& p, double v) { p.recurring_params.entries = v; }},
    {"recurring_share_up", kNonNegative,
     [](Params& p, double v) { p.recurring_params.share_up = v; }},
    {"recurring_share_down", kNonNegative,
     [](Params& p, double v) { p.recurring_params.share_down = v; }},
    {"recurring_min_share", kNonNegative,
     [](Params& p, double v) { p.recurring_params.min_share = v; }},
    {"recurring_initial_share", kNonNegative,
     [](Params& p, double v) { p.recurring_params.initial_share = v; }},
    {"surge_fast", kNonNegative, [](Params& p, double v) { p.surge.fast = v; }},
    {"surge_slow", kNonNegative, [](Params& p, double v) { p.surge.slow = v; }},
    {"surge_ratio", kNonNegative, [](Params& p, double v) { p.surge.ratio = v; }},
    {"surge_floor", kNonNegative, [](Params& p, double v) { p.surge.floor = v; }},
    {"surge_end_ratio", kNonNegative, [](Params& p, double v) { p.surge.end_ratio = v; }},
    {"surge_eviction_return", kNonNegative,
     [](Params& p, double v) { p.surge_eviction_return = v; }},
    {"surge_memory", kNonNegative, [](Params& p, double v) { p.surge_memory = v; }},
    {"surge_warm", kFlag, [](Params& p, double v) { p.surge_warm = v != 0; }},
    {"surge_hold", kNonNegative, [](Params& p, double v) { p.surge_hold = v; }},
    {"recent_halving", kNonNegative, [](Params& p, double v) { p.recent_halving = v; }},
    {"young_bar", kNonNegative, [](Params& p, double v) { p.young_bar = v; }},
    {"young_ratio", kNonNegative, [](Params& p, double v) { p.young_ratio = v; }},
}};

// Why `value` is out of `range`, or null.
const char* OutOfRange(Range range, double value) {
  switch (range) {
    case Range::kNonNegative:
      return value >= 0 ? nullptr : "must be >= 0";
    case Range::kPositive:
      return value > 0 ? nullptr : "must be > 0";
    case Range::kFlag:
      return value == 0 || value == 1 ? nullptr : "want 0 or 1";
    case Range::kSampleShift:
      return value >= -1 && value <= 30 && value == std::floor(value)
                 ? nullptr
                 : "want -1 (automatic) or a whole number 0-30";
    case Range::kCount:
      return value >= 0 && value <= UINT32_MAX && value == std::floor(value)
                 ? nullptr
                 : "want a whole number 0-4294967295";
  }
  return nullptr;
}

std::string KnownKnobs() {
  std::string known;
  for (std::string_view name : AdaptiveKnobNames()) {
    known += (known.empty() ? "" : ", ") + std::string(name);
  }
  return known;
}

}  // namespace

std::vector<std::string_view> AdaptiveKnobNames() {
  std::vector<std::string_view> names;
  for (const Knob& knob : kKnobs) names.push_back(knob.name);
  return names;
}

Status ApplyAdaptiveKnob(std::string_view assignment, Params& params) {
  const std::string quoted = "'" + std::string(assignment) + "'";
  const size_t eq = assignment.find('=');
  if (eq == std::string_view::npos) {
    return Status::InvalidArgument(quoted + ": want KNOB=VALUE");
  }
  const std::string_view name = assignment.substr(0, eq);
  const std::string_view text = assignment.substr(eq + 1);
  const Knob* knob = nullptr;
  for (const Knob& k : kKnobs) {
    if (k.name == name) knob = &k;
  }
  if (!knob) {
    return Status::InvalidArgument(quoted + ": unknown adaptive knob (known: " + KnownKnobs() +
                                   ")");
  }
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    return Status::InvalidArgument(quoted + ": the value is not a number");
  }
  if (const char* why = OutOfRange(knob->range, value)) {
    return Status::InvalidArgument(quoted + ": " + why);
  }
  knob->set(params, value);
  return Status::Ok();
}

Status ApplyAdaptiveKnobs(const std::vector<std::string>& assignments, Params& params) {
  Params changed = params;
  for (const std::string& assignment : assignments) {
    TC_RETURN_IF_ERROR(ApplyAdaptiveKnob(assignment, changed));
  }
  params = changed;
  return Status::Ok();
}

}  // namespace tiercache
