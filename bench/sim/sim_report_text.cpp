#include "bench/sim/sim_report_text.h"

#include <sstream>

#include "bench/sim/sim_format.h"

namespace tiercache::bench {
namespace {

std::string Pad(const std::string& s, size_t width, bool right) {
  if (s.size() >= width) return s;
  const std::string fill(width - s.size(), ' ');
  return right ? fill + s : s + fill;
}

// "admission: admitted=6 refused=0; replacement: ..." (groups without counters left out).
std::string Counters(const PolicyReport& p) {
  std::string s;
  for (const auto& [label, counters] :
       {std::pair{"admission", &p.admission_counters}, {"replacement", &p.replacement_counters},
        {"sequential", &p.sequential_counters}}) {
    if (counters->empty()) continue;
    s += std::string(s.empty() ? "" : "; ") + label + ":";
    for (const auto& [name, value] : *counters) s += " " + name + "=" + std::to_string(value);
  }
  return s.empty() ? "-" : s;
}

void Table(std::ostringstream& o, const SimTraceResult& t) {
  o << Pad("cache", 10, true) << "  " << Pad("admission/replacement", 24, false)
    << Pad("miss ratio", 11, true) << Pad("block misses", 14, true)
    << Pad("SSD written", 13, true) << Pad("HDD read", 13, true) << Pad("evictions", 11, true)
    << "\n";
  for (const SimResult& r : t.results) {
    const std::string combo = r.sim_case.combo() + (r.sim_case.is_default_policy() ? " *" : "");
    o << Pad(SimBytes(r.sim_case.cache_bytes), 10, true) << "  " << Pad(combo, 24, false)
      << Pad(SimFixed(r.miss_ratio(), 4), 11, true)
      << Pad(std::to_string(r.block_misses()), 14, true)
      << Pad(SimBytes(r.ssd_bytes_written(), true), 13, true)
      << Pad(SimBytes(r.hdd_bytes_read(), true), 13, true)
      << Pad(std::to_string(r.counters.evictions), 11, true) << "\n";
  }
}

}  // namespace

std::string SimTextReport(const std::vector<SimTraceResult>& traces) {
  std::ostringstream o;
  for (const SimTraceResult& t : traces) {
    if (&t != &traces.front()) o << "\n";
    o << t.trace.name << " (" << t.trace.format << ":" << t.trace.file << ")";
    if (!t.results.empty()) {
      const SimResult& first = t.results.front();
      o << ": " << first.requests << " requests, " << first.block_accesses
        << " block accesses; " << SimSettings(first.sim_case);
    }
    o << "\n";
    Table(o, t);
    o << "(* = the engine's default policies)\npolicy counters:\n";
    for (const SimResult& r : t.results) {
      o << "  " << SimBytes(r.sim_case.cache_bytes) << " " << r.sim_case.combo() << "  "
        << Counters(r.policies) << "\n";
    }
  }
  return o.str();
}

}  // namespace tiercache::bench
