// Small formatting helpers shared by the sim's text and HTML reports: binary byte sizes, fixed
// decimals, and one line describing the run's engine options. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "bench/sim/sim_case.h"

namespace tiercache::bench {

// "16 MiB", "1 GiB" when exact, else one decimal: "46.4 MiB"; below 1 KiB: "512 B". With
// `always_decimal`, "16.0 MiB" too (columns of measured bytes line up).
inline std::string SimBytes(uint64_t bytes, bool always_decimal = false) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  uint64_t whole = bytes;
  while (unit < 4 && whole >= 1024) {
    whole /= 1024;
    ++unit;
  }
  const uint64_t scale = uint64_t{1} << (10 * unit);
  if (unit == 0 || (bytes % scale == 0 && !always_decimal)) {
    return std::to_string(whole) + " " + kUnits[unit];
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %s", double(bytes) / double(scale), kUnits[unit]);
  return buf;
}

inline std::string SimFixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// "mode wt, 16 shards, sequential bypass at 4 MiB": what every case of a run shares.
inline std::string SimSettings(const SimCase& c) {
  const SequentialOptions seq = c.policies().sequential;
  std::string s = "mode " + std::string(ModeName(c.mode)) + ", " + std::to_string(c.shards) +
                  (c.shards == 1 ? " shard" : " shards") + ", sequential bypass ";
  if (!seq.enabled) return s + "off";
  if (seq.read_cutoff_bytes == seq.write_cutoff_bytes) return s + "at " + SimBytes(seq.read_cutoff_bytes);
  return s + "at " + SimBytes(seq.read_cutoff_bytes) + " (reads), " +
         SimBytes(seq.write_cutoff_bytes) + " (writes)";
}

}  // namespace tiercache::bench
