#include "bench/runner/report_text.h"

#include <algorithm>
#include <sstream>

#include "bench/runner/report_format.h"

namespace tiercache::bench {
namespace {

std::string Pad(const std::string& s, size_t width, bool right = true) {
  if (s.size() >= width) return s;
  return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

uint64_t SsdWritten(const SetupResult& s) {
  uint64_t n = 0;
  for (const auto& p : s.passes) n += p.ssd_bytes_written;
  return n;
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
  out << "\n";
}

}  // namespace

std::string FormatTextReport(const BenchResults& results) {
  std::ostringstream out;
  out << "tiercache bench: " << (results.mode == "realtime" ? "real" : "virtual") << " time, HDD " << results.hdd_profile << ", SSD "
      << results.ssd_profile << ", cache " << Bytes(results.cache_bytes) << ", " << results.passes
      << " passes (pass 1 cold), seed " << results.seed << "\n\n";
  for (const WorkloadResult& w : results.workloads) FormatWorkload(w, results.passes, out);
  return out.str();
}

}  // namespace tiercache::bench
