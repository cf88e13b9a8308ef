#include "bench/runner/ratio_view.h"

#include <algorithm>
#include <sstream>

#include "bench/runner/report_format.h"
#include "bench/workloads/synthetic_tests.h"

namespace tiercache::bench {
namespace {

bool IsCached(const SetupResult& s) {
  return s.name != "hdd" && s.name != "ssd" && s.error.empty() && !s.passes.empty();
}

bool HasPositions(const WorkloadResult& w) {
  for (const auto& s : w.setups) {
    for (const auto& p : s.passes) {
      if (!p.positions.empty()) return true;
    }
  }
  return false;
}

bool IsSeq1MWrite(const std::string& name) {
  if (!name.starts_with("cdm:") && !name.starts_with("cdm-large:")) return false;
  auto t = ParseSyntheticTest(name);
  return t.ok() && t->sequential && t->block == (1u << 20) && t->write;
}

bool IsLaunch(const std::string& name) {
  return name == "boot" || name == "applaunch" || name == "realapp";
}

// Worst over the passes (lowest or highest); nullopt if any pass has no figure.
std::optional<double> Worst(const std::vector<std::optional<double>>& v, bool lowest) {
  if (v.empty()) return std::nullopt;
  double worst = lowest ? 1e300 : -1e300;
  for (const auto& x : v) {
    if (!x) return std::nullopt;
    worst = lowest ? std::min(worst, *x) : std::max(worst, *x);
  }
  return worst;
}

RatioRow HdTuneRow(const WorkloadResult& w, const SetupResult& s) {
  RatioRow row{RatioKind::kHdTuneWorstPosition, w.name, s.name, {}, {}, std::nullopt, false};
  for (size_t k = 0; k < s.passes.size(); ++k) {
    const auto worst = WorstPositionRatio(w, s, k);
    row.per_pass.push_back(worst ? std::optional<double>(worst->ratio) : std::nullopt);
  }
  row.figure = Worst(row.per_pass, true);
  row.met = row.figure && *row.figure >= kHdTuneMinRatio;
  return row;
}

RatioRow SeqWriteRow(const WorkloadResult& w, const SetupResult& s) {
  RatioRow row{RatioKind::kSeqWriteSsdShare, w.name, s.name, {}, {}, std::nullopt, false};
  for (const PassResult& p : s.passes) {
    // A setup without cache counters (nbdkit-cache: no hit ratio) has no SSD byte count either.
    const bool counted = p.bytes_written != 0 && p.hit_ratio.has_value();
    row.per_pass.push_back(counted ? std::optional<double>(
                                                 static_cast<double>(p.ssd_bytes_written) /
                                                 static_cast<double>(p.bytes_written))
                                           : std::nullopt);
  }
  row.figure = Worst(row.per_pass, false);
  row.met = row.figure && *row.figure <= kSeqWriteMaxSsdShare;
  return row;
}

RatioRow LaunchRow(const WorkloadResult& w, const SetupResult& s) {
  RatioRow row{RatioKind::kWarmSpeedup, w.name, s.name, {}, {}, w.speedup_vs_hdd(s), false};
  for (const PassResult& p : s.passes) row.ssd_bytes_written.push_back(p.ssd_bytes_written);
  row.met = row.figure && *row.figure >= kWarmMinSpeedup;
  return row;
}

}  // namespace

std::optional<WorstPosition> WorstPositionRatio(const WorkloadResult& w, const SetupResult& s,
                                                size_t pass) {
  const SetupResult* hdd = w.setup("hdd");
  if (!hdd || !hdd->error.empty() || pass >= hdd->passes.size() || pass >= s.passes.size()) {
    return std::nullopt;
  }
  const auto& base = hdd->passes[pass].positions;
  const auto& mine = s.passes[pass].positions;
  if (base.empty() || base.size() != mine.size()) return std::nullopt;
  std::optional<WorstPosition> worst;
  for (size_t k = 0; k < base.size(); ++k) {
    if (base[k].offset != mine[k].offset || base[k].mb_per_s <= 0) return std::nullopt;
    const double ratio = mine[k].mb_per_s / base[k].mb_per_s;
    if (!worst || ratio < worst->ratio) worst = WorstPosition{ratio, base[k].offset};
  }
  return worst;
}

std::vector<RatioRow> ComputeRatioView(const BenchResults& r) {
  std::vector<RatioRow> rows;
  for (const WorkloadResult& w : r.workloads) {
    const bool hdtune = HasPositions(w), seq = IsSeq1MWrite(w.name), launch = IsLaunch(w.name);
    for (const SetupResult& s : w.setups) {
      if (!IsCached(s)) continue;
      if (hdtune) rows.push_back(HdTuneRow(w, s));
      else if (seq) rows.push_back(SeqWriteRow(w, s));
      else if (launch) rows.push_back(LaunchRow(w, s));
    }
  }
  return rows;
}

std::string RatioVerdict(const RatioRow& row) {
  if (!row.figure) return "n/a";
  return row.met ? "ok" : "MISSED";
}

std::vector<std::string> RatioCells(const RatioRow& row) {
  std::vector<std::string> cells;
  if (row.kind == RatioKind::kWarmSpeedup) {
    for (uint64_t b : row.ssd_bytes_written) cells.push_back(Bytes(b));
    return cells;
  }
  for (const auto& x : row.per_pass) {
    if (!x) cells.push_back("-");
    else if (row.kind == RatioKind::kSeqWriteSsdShare) cells.push_back(Percent(x));
    else cells.push_back(Fixed(*x, 3));
  }
  return cells;
}

std::string RatioFigure(const RatioRow& row) {
  if (!row.figure) return "-";
  switch (row.kind) {
    case RatioKind::kHdTuneWorstPosition: return Fixed(*row.figure, 3);
    case RatioKind::kSeqWriteSsdShare: return Percent(row.figure);
    case RatioKind::kWarmSpeedup: return Fixed(*row.figure, 2) + "x";
  }
  return "-";
}

std::string RatioHeader(const RatioRow& row) {
  switch (row.kind) {
    case RatioKind::kHdTuneWorstPosition:
      return row.workload + ": lowest setup/hdd MB/s over the positions, per pass (target >= " +
             Fixed(kHdTuneMinRatio, 2) + ")";
    case RatioKind::kSeqWriteSsdShare:
      return row.workload + ": SSD bytes written / bytes written, per pass (target <= " +
             Fixed(kSeqWriteMaxSsdShare * 100, 0) + "%)";
    case RatioKind::kWarmSpeedup:
      return row.workload + ": SSD bytes written per pass; warm speed-up vs hdd (target >= " +
             Fixed(kWarmMinSpeedup, 0) + "x)";
  }
  return row.workload;
}

std::string FormatRatioView(const std::vector<RatioRow>& rows, uint32_t passes) {
  if (rows.empty()) return "";
  std::ostringstream out;
  out << "== targets: cached setups against the bare HDD (printed figures, not assertions)\n";
  const std::string* workload = nullptr;
  size_t width = 10;  // setup names: wider for nbdkit-cache
  for (const RatioRow& row : rows) width = std::max(width, row.setup.size() + 2);
  for (const RatioRow& row : rows) {
    if (!workload || *workload != row.workload) out << RatioHeader(row) << "\n";
    workload = &row.workload;
    out << "  " << Pad(row.setup, width, false);
    const auto cells = RatioCells(row);
    for (const auto& c : cells) out << Pad(c, 10);
    for (size_t k = cells.size(); k < passes; ++k) out << Pad("-", 10);
    out << "  " << (row.kind == RatioKind::kWarmSpeedup ? "warm  " : "worst ")
        << Pad(RatioFigure(row), 7) << "  " << RatioVerdict(row) << "\n";
  }
  out << "\n";
  return out.str();
}

}  // namespace tiercache::bench
