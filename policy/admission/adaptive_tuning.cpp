#include "policy/admission/adaptive_tuning.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>

namespace tiercache {
namespace {

using Params = AdaptiveAdmission::Params;

// The values a knob takes, and how an error says so. Table sizes, and the window and span that
// size trackers, are bounded as the engine's own adaptive_window is, at 64 per slot; times and
// shares at a million, so that every product with a capacity stays a count.
struct Range {
  double min, max;
  bool above_min;  // min itself is out
  bool whole;
  const char* want;
};

constexpr Range kAmount{0, 1e6, false, false, "must be in [0, 1000000]"};
constexpr Range kSize{0, 64, true, false, "must be in (0, 64]"};
constexpr Range kTable{0, 64, false, false, "must be in [0, 64]"};
constexpr Range kFlag{0, 1, false, true, "want 0 or 1"};
constexpr Range kSampleShift{-1, 30, false, true, "want -1 (automatic) or a whole number 0-30"};
constexpr Range kCount{0, UINT32_MAX, false, true, "want a whole number 0-4294967295"};
constexpr Range kLevel{0, AdaptiveAdmission::kLevels - 1, false, true, "want a whole number 0-4"};

struct Knob {
  std::string_view name;
  Range range;
  void (*set)(Params&, double);
};

// One line per field; a lambda without captures converts to the function pointer.
constexpr std::array<Knob, 34> kKnobs = {{
    {"window", kSize, [](Params& p, double v) { p.window = v; }},
    {"min_return", kAmount, [](Params& p, double v) { p.min_return = v; }},
    {"margin", kAmount, [](Params& p, double v) { p.margin = v; }},
    {"pending_weight", kAmount, [](Params& p, double v) { p.pending_weight = v; }},
    {"eviction_prior", kAmount, [](Params& p, double v) { p.eviction_prior = v; }},
    {"probe_interval", kCount,
     [](Params& p, double v) { p.probe_interval = static_cast<uint32_t>(v); }},
    {"miss_halving", kAmount, [](Params& p, double v) { p.miss_halving = v; }},
    {"eviction_halving", kAmount, [](Params& p, double v) { p.eviction_halving = v; }},
    {"frequency_halving", kAmount, [](Params& p, double v) { p.frequency_halving = v; }},
    {"frequency_keys", kSize, [](Params& p, double v) { p.frequency_keys = v; }},
    {"ghost", kTable, [](Params& p, double v) { p.ghost = v; }},
    {"sample_shift", kSampleShift,
     [](Params& p, double v) { p.sample_shift = static_cast<int>(v); }},
    {"sample_seed", kCount,
     [](Params& p, double v) { p.sample_seed = static_cast<uint32_t>(v); }},
    {"recurring", kFlag, [](Params& p, double v) { p.recurring = v != 0; }},
    {"recurring_span", kTable, [](Params& p, double v) { p.recurring_params.span = v; }},
    {"recurring_entries", kSize, [](Params& p, double v) { p.recurring_params.entries = v; }},
    {"recurring_share_up", kAmount,
     [](Params& p, double v) { p.recurring_params.share_up = v; }},
    {"recurring_share_down", kAmount,
     [](Params& p, double v) { p.recurring_params.share_down = v; }},
    {"recurring_min_share", kAmount,
     [](Params& p, double v) { p.recurring_params.min_share = v; }},
    {"recurring_initial_share", kAmount,
     [](Params& p, double v) { p.recurring_params.initial_share = v; }},
    {"surge_fast", kAmount, [](Params& p, double v) { p.surge.fast = v; }},
    {"surge_slow", kAmount, [](Params& p, double v) { p.surge.slow = v; }},
    {"surge_ratio", kAmount, [](Params& p, double v) { p.surge.ratio = v; }},
    {"surge_floor", kAmount, [](Params& p, double v) { p.surge.floor = v; }},
    {"surge_end_ratio", kAmount, [](Params& p, double v) { p.surge.end_ratio = v; }},
    {"surge_evidence", kAmount, [](Params& p, double v) { p.surge.evidence = v; }},
    {"surge_max_level", kLevel,
     [](Params& p, double v) { p.surge_max_level = static_cast<int>(v); }},
    {"surge_eviction_return", kAmount,
     [](Params& p, double v) { p.surge_eviction_return = v; }},
    {"surge_memory", kAmount, [](Params& p, double v) { p.surge_memory = v; }},
    {"surge_warm", kFlag, [](Params& p, double v) { p.surge_warm = v != 0; }},
    {"surge_hold", kAmount, [](Params& p, double v) { p.surge_hold = v; }},
    {"recent_halving", kAmount, [](Params& p, double v) { p.recent_halving = v; }},
    {"young_bar", kAmount, [](Params& p, double v) { p.young_bar = v; }},
    {"young_ratio", kAmount, [](Params& p, double v) { p.young_ratio = v; }},
}};

bool InRange(const Range& range, double value) {
  return (range.above_min ? value > range.min : value >= range.min) && value <= range.max &&
         (!range.whole || value == std::floor(value));
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
  if (!InRange(knob->range, value)) {
    return Status::InvalidArgument(quoted + ": " + knob->range.want);
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
