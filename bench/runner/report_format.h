// Number formatting shared by the reports: padding, fixed decimals, decimal (10^n) byte units, and
// the per-workload figure of merit. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "bench/runner/bench_results.h"

namespace tiercache::bench {

// Pads `s` to `width` characters, on the left (right-aligned) or on the right.
inline std::string Pad(const std::string& s, size_t width, bool right = true) {
  if (s.size() >= width) return s;
  return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

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

// Bytes as binary MiB, for positions in an area: "0 MiB", "512 MiB", "1.5 MiB".
inline std::string MiB(uint64_t bytes) {
  if (bytes % (1 << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  return Fixed(static_cast<double>(bytes) / (1 << 20), 1) + " MiB";
}


}  // namespace tiercache::bench
