// Number formatting shared by the reports: fixed decimals, decimal (10^n) byte units, and
// the per-workload figure of merit. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "bench/runner/bench_results.h"

namespace tiercache::bench {

inline std::string Fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// 3 significant-ish digits: 0.512, 48.2, 1234.
inline std::string Figure(double v) {
  if (v >= 1000) return Fixed(v, 0);
  if (v >= 100) return Fixed(v, 1);
  if (v >= 10) return Fixed(v, 2);
  return Fixed(v, 3);
}

// 10^n units, as storage reviews use: "0 B", "512 kB", "1.2 GB".
inline std::string Bytes(uint64_t n) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB"};
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1000 && u < 4) {
    v /= 1000;
    ++u;
  }
  return (u == 0 ? std::to_string(n) : Fixed(v, v >= 100 ? 0 : 1)) + " " + units[u];
}

inline std::string MetricUnit(const WorkloadResult& w) {
  return w.lower_is_better() ? "seconds, lower is better" : "MB/s, higher is better";
}

inline std::string Percent(const std::optional<double>& r) {
  return r ? Fixed(*r * 100, 1) + "%" : "-";
}

}  // namespace tiercache::bench
