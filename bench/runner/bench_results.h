// BenchResults: what a tiercache-bench run measured: per workload, per setup, one PassResult per
// pass (pass 1 cold). Plain values; thread-compatible. report_*.h turn it into a terminal table,
// JSON and HTML.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/runner/bench_policies.h"

namespace tiercache::bench {

// One point of HD Tune's curve (hdtune workload): the transfer rate at one position of the area.
struct PositionResult {
  uint64_t offset = 0;  // bytes from the start of the read area
  double mb_per_s = 0;  // 10^6 bytes per second while reading this position

  bool operator==(const PositionResult&) const = default;
};

struct PassResult {
  double seconds = 0;          // first issue to last completion
  double mb_per_s = 0;         // (read + written bytes) / seconds / 10^6
  double iops = 0;
  double mean_latency_us = 0;
  std::optional<double> hit_ratio;        // cache setups only: reads if any, else writes
  std::optional<double> read_hit_ratio;   // full read hits / reads
  std::optional<double> write_hit_ratio;  // write hits / writes
  uint64_t ssd_bytes_written = 0;  // bytes written to the SSD device this pass (metadata included)
  uint64_t hdd_bytes_read = 0, hdd_bytes_written = 0;  // at the HDD device
  uint64_t ops = 0, bytes_read = 0, bytes_written = 0, errors = 0;
  std::vector<PositionResult> positions;  // hdtune only: MB/s per position, in offset order
};

struct SetupResult {
  std::string name;  // hdd, ssd, wt, wb
  std::vector<PassResult> passes;
  std::string error;  // non-empty if the setup could not run
};

struct WorkloadResult {
  std::string name;  // boot, applaunch, cdm:SEQ1M-Q8T1-read, ...
  // The figure of merit: "seconds" (time to complete; lower is better) or "mb_per_s".
  std::string metric;
  std::string description;
  std::vector<SetupResult> setups;

  bool lower_is_better() const { return metric == "seconds"; }
  double value(const PassResult& p) const { return lower_is_better() ? p.seconds : p.mb_per_s; }
  const SetupResult* setup(const std::string& name) const;
  // Warm (last pass) speed-up of `s` over the hdd setup; nullopt without an hdd baseline.
  std::optional<double> speedup_vs_hdd(const SetupResult& s) const;
};

struct BenchResults {
  std::string mode;  // "virtual" or "realtime"
  uint32_t passes = 0;
  uint64_t seed = 0;
  std::string hdd_profile, ssd_profile;
  uint64_t cache_bytes = 0;
  BenchPolicies policies;  // the wt/wb setups' engine options
  std::vector<WorkloadResult> workloads;
};

}  // namespace tiercache::bench
