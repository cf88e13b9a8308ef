#include "bench/runner/bench_results.h"

namespace tiercache::bench {

const SetupResult* WorkloadResult::setup(const std::string& name) const {
  for (const auto& s : setups) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

std::optional<double> WorkloadResult::speedup_vs_hdd(const SetupResult& s) const {
  const SetupResult* hdd = setup("hdd");
  if (!hdd || hdd->passes.empty() || s.passes.empty()) return std::nullopt;
  const double base = value(hdd->passes.back());
  const double mine = value(s.passes.back());
  if (base <= 0 || mine <= 0) return std::nullopt;
  return lower_is_better() ? base / mine : mine / base;
}

}  // namespace tiercache::bench
