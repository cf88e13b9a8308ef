// The ratio view: how the cached setups measure against the targets of the caching reviews, as
// printed figures (not assertions): HD Tune's worst position against the bare HDD (>= 0.95x),
// the SSD's share of CrystalDiskMark SEQ1M writes (<= 5%), and warm boot / application launch
// speed-ups over the HDD (>= 4x) with the SSD bytes written. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/runner/bench_results.h"

namespace tiercache::bench {

enum class RatioKind {
  kHdTuneWorstPosition,  // per pass: min over positions of setup MB/s / hdd MB/s (same pass)
  kSeqWriteSsdShare,     // per pass: SSD bytes written / bytes the workload wrote
  kWarmSpeedup,          // warm (last pass) speed-up vs hdd; per pass: SSD bytes written
};

struct RatioRow {
  RatioKind kind;
  std::string workload, setup;
  std::vector<std::optional<double>> per_pass;  // kHdTune..., kSeqWrite...: the pass's figure
  std::vector<uint64_t> ssd_bytes_written;      // kWarmSpeedup: per pass
  // What is held against the target: the worst pass (kHdTune...: lowest, kSeqWrite...: highest)
  // or the warm speed-up; nullopt if a pass or the hdd baseline is missing.
  std::optional<double> figure;
  bool met = false;  // figure meets the target
};

inline constexpr double kHdTuneMinRatio = 0.95;
inline constexpr double kSeqWriteMaxSsdShare = 0.05;
inline constexpr double kWarmMinSpeedup = 4.0;

struct WorstPosition {
  double ratio = 0;     // setup MB/s / hdd MB/s
  uint64_t offset = 0;  // where, bytes from the start of the area
};
// The lowest setup/hdd rate ratio over the positions of pass `pass` (0-based); nullopt without
// an hdd run with the same positions.
std::optional<WorstPosition> WorstPositionRatio(const WorkloadResult& w, const SetupResult& s,
                                                size_t pass);

// Rows for the cached setups (every setup but hdd and ssd that ran) of hdtune (workloads with
// positions), CrystalDiskMark SEQ1M writes (cdm: and cdm-large:) and boot, applaunch, realapp.
std::vector<RatioRow> ComputeRatioView(const BenchResults& r);
// The text form: a header per workload, then one line per row; empty if there are no rows.
std::string FormatRatioView(const std::vector<RatioRow>& rows, uint32_t passes);
// "ok", "MISSED", or "n/a" without a figure.
std::string RatioVerdict(const RatioRow& row);
// The row's per-pass cells and its figure as printed ("0.981", "3.2%", "300 MB"; "-" if missing).
std::vector<std::string> RatioCells(const RatioRow& row);
std::string RatioFigure(const RatioRow& row);
// The workload header line: what the numbers are and the target.
std::string RatioHeader(const RatioRow& row);

}  // namespace tiercache::bench
