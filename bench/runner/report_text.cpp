#include "bench/runner/report_text.h"

#include <algorithm>
#include <optional>
#include <sstream>
#include <vector>

#include "bench/runner/ratio_view.h"
#include "bench/runner/report_format.h"

namespace tiercache::bench {
namespace {

uint64_t SsdWritten(const SetupResult& s) {
  uint64_t n = 0;
  for (const auto& p : s.passes) n += p.ssd_bytes_written;
  return n;
}

// hdtune, one line per setup: min/avg/max over every position of every pass and, against hdd,
// the worst position (lowest setup/hdd ratio over all passes).
void FormatPositions(const WorkloadResult& w, std::ostringstream& out) {
  for (const SetupResult& s : w.setups) {
    std::vector<double> rates;
    for (const auto& p : s.passes) {
      for (const auto& pos : p.positions) rates.push_back(pos.mb_per_s);
    }
    if (rates.empty()) continue;
    double sum = 0;
    for (double r : rates) sum += r;
    const auto [min, max] = std::minmax_element(rates.begin(), rates.end());
    out << "  " << Pad(s.name, 10, false) << "positions MB/s: min " << Figure(*min) << ", avg "
        << Figure(sum / rates.size()) << ", max " << Figure(*max);
    std::optional<WorstPosition> worst;
    size_t worst_pass = 0;
    for (size_t k = 0; s.name != "hdd" && k < s.passes.size(); ++k) {
      const auto x = WorstPositionRatio(w, s, k);
      if (!x || (worst && x->ratio >= worst->ratio)) continue;
      worst = x;
      worst_pass = k;
    }
    if (worst) {
      out << "; worst vs hdd " << Fixed(worst->ratio, 3) << "x at " << MiB(worst->offset)
          << " in pass " << worst_pass + 1;
    }
    out << "\n";
  }
}

void FormatWorkload(const WorkloadResult& w, uint32_t passes, std::ostringstream& out) {
  out << "== " << w.name << "  (" << MetricUnit(w) << ")";
  if (!w.description.empty()) out << "  " << w.description;
  out << "\n" << Pad("setup", 12, false);
  for (uint32_t p = 1; p <= passes; ++p) out << Pad("pass " + std::to_string(p), 10);
  out << Pad("vs hdd", 9) << Pad("hit", 8) << Pad("SSD written", 13) << "\n";
  for (const SetupResult& s : w.setups) {
    out << Pad(s.name, 12, false);
    if (!s.error.empty()) {
      out << "  error: " << s.error << "\n";
      continue;
    }
    for (const PassResult& p : s.passes) out << Pad(Figure(w.value(p)), 10);
    for (size_t k = s.passes.size(); k < passes; ++k) out << Pad("-", 10);
    const auto speedup = w.speedup_vs_hdd(s);
    out << Pad(speedup ? Fixed(*speedup, 2) + "x" : "-", 9);
    out << Pad(s.passes.empty() ? "-" : Percent(s.passes.back().hit_ratio), 8);
    out << Pad(Bytes(SsdWritten(s)), 13);
    uint64_t errors = 0;
    for (const auto& p : s.passes) errors += p.errors;
    if (errors) out << "  (" << errors << " I/O errors)";
    out << "\n";
  }
  FormatPositions(w, out);
  out << "\n";
}

}  // namespace

std::string FormatTextReport(const BenchResults& results) {
  std::ostringstream out;
  out << "tiercache bench: " << (results.mode == "realtime" ? "real" : "virtual") << " time, HDD "
      << results.hdd_profile << ", SSD " << results.ssd_profile << ", cache "
      << Bytes(results.cache_bytes) << ", " << results.passes << " passes (pass 1 cold), seed " << results.seed << "\n"
      << "wt/wb engine policies: " << results.policies.summary() << "\n\n";
  for (const WorkloadResult& w : results.workloads) FormatWorkload(w, results.passes, out);
  out << FormatRatioView(ComputeRatioView(results), results.passes);
  return out.str();
}

}  // namespace tiercache::bench
