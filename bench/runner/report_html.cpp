#include "bench/runner/report_html.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include "bench/runner/position_chart.h"
#include "bench/runner/ratio_view.h"
#include "bench/runner/report_format.h"
#include "bench/runner/report_svg.h"

namespace tiercache::bench {
namespace {

constexpr int kWidth = 760, kLeft = 60, kRight = 60, kBar = 11, kGap = 2, kGroupGap = 10;

// Every pass of every setup as a horizontal bar (pass 1 palest), on a linear axis from 0.
std::string PassChart(const WorkloadResult& w) {
  double max = 0;
  int rows = 0;
  for (const auto& s : w.setups) {
    for (const auto& p : s.passes) max = std::max(max, w.value(p));
    rows += std::max<int>(1, s.passes.size());
  }
  if (max <= 0) max = 1;
  const int height = rows * (kBar + kGap) + static_cast<int>(w.setups.size()) * kGroupGap + 24;
  const double span = kWidth - kLeft - kRight;
  std::ostringstream o;
  o << "<svg xmlns='http://www.w3.org/2000/svg' width='" << kWidth << "' height='" << height
    << "' class='chart'>";
  double y = 4;
  for (const auto& s : w.setups) {
    const double top = y;
    for (size_t k = 0; k < s.passes.size(); ++k) {
      const double v = w.value(s.passes[k]);
      const double opacity = s.passes.size() > 1 ? 0.35 + 0.65 * k / (s.passes.size() - 1) : 1;
      Rect(o, kLeft, y, span * v / max, kBar, SetupColor(s.name), opacity);
      Text(o, kLeft + span * v / max + 4, y + kBar - 2, Figure(v));
      y += kBar + kGap;
    }
    if (s.passes.empty()) y += kBar + kGap;
    Text(o, kLeft - 8, (top + y) / 2 + 4, s.name, "end");
    y += kGroupGap;
  }
  o << "<line x1='" << kLeft << "' y1='0' x2='" << kLeft << "' y2='" << Fixed(y, 0)
    << "' stroke='#333'/>";
  Text(o, kLeft, y + 12, "0");
  Text(o, kLeft + span, y + 12, Figure(max) + (w.lower_is_better() ? " s" : " MB/s"), "end");
  o << "</svg>";
  return o.str();
}

// Warm (last pass) speed-up over hdd per workload and setup, on a log axis from 0.5x to 1000x
// with the HDD's 1x marked.
std::string SummaryChart(const BenchResults& r) {
  constexpr double kMin = 0.5, kMax = 1000;
  const double left = 200, span = kWidth - left - 70;
  auto x_of = [&](double v) {
    return left + span * std::log10(std::clamp(v, kMin, kMax) / kMin) / std::log10(kMax / kMin);
  };
  int rows = 0;
  for (const auto& w : r.workloads) rows += static_cast<int>(w.setups.size()) - (w.setup("hdd") ? 1 : 0);
  const int height = rows * (kBar + kGap) + static_cast<int>(r.workloads.size()) * kGroupGap + 30;
  std::ostringstream o;
  o << "<svg xmlns='http://www.w3.org/2000/svg' width='" << kWidth << "' height='" << height
    << "' class='chart'>";
  for (double g : {0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0}) {
    o << "<line x1='" << Fixed(x_of(g), 1) << "' y1='0' x2='" << Fixed(x_of(g), 1) << "' y2='"
      << height - 18 << "' stroke='" << (g == 1.0 ? "#555" : "#ddd") << "'/>";
    Text(o, x_of(g), height - 6, (g < 1 ? Fixed(g, 1) : Fixed(g, 0)) + "x", "middle");
  }
  double y = 4;
  for (const auto& w : r.workloads) {
    const double top = y;
    for (const auto& s : w.setups) {
      if (s.name == "hdd") continue;
      const auto x = w.speedup_vs_hdd(s);
      if (x) Rect(o, left, y, x_of(*x) - left, kBar, SetupColor(s.name), 1.0);
      Text(o, (x ? x_of(*x) : left) + 4, y + kBar - 2, s.name + " " + (x ? Fixed(*x, 2) + "x" : "n/a"));
      y += kBar + kGap;
    }
    Text(o, left - 8, (top + y) / 2 + 4, w.name, "end");
    y += kGroupGap;
  }
  o << "</svg>";
  return o.str();
}

std::string Table(const WorkloadResult& w, uint32_t passes) {
  std::ostringstream o;
  o << "<table><tr><th>setup</th>";
  for (uint32_t p = 1; p <= passes; ++p) o << "<th>pass " << p << "</th>";
  o << "<th>vs hdd</th><th>hit ratio</th><th>IOPS</th><th>mean latency</th><th>SSD written</th></tr>";
  for (const auto& s : w.setups) {
    o << "<tr><td class='setup' style='color:" << SetupColor(s.name) << "'>" << Escape(s.name) << "</td>";
    if (!s.error.empty()) {
      o << "<td colspan='" << passes + 5 << "'>error: " << Escape(s.error) << "</td></tr>";
      continue;
    }
    uint64_t written = 0;
    for (const auto& p : s.passes) {
      o << "<td>" << Figure(w.value(p)) << "</td>";
      written += p.ssd_bytes_written;
    }
    for (size_t k = s.passes.size(); k < passes; ++k) o << "<td>-</td>";
    const auto x = w.speedup_vs_hdd(s);
    const PassResult last = s.passes.empty() ? PassResult{} : s.passes.back();
    o << "<td>" << (x ? Fixed(*x, 2) + "x" : "-") << "</td><td>" << Percent(last.hit_ratio)
      << "</td><td>" << Figure(last.iops) << "</td><td>" << Figure(last.mean_latency_us / 1000)
      << " ms</td><td>" << Bytes(written) << "</td></tr>";
  }
  o << "</table>";
  return o.str();
}

// The ratio view as a table: per workload, a header row, then per cached setup its per-pass
// figures, the figure held against the target and the verdict.
std::string RatioTable(const BenchResults& r) {
  const std::vector<RatioRow> rows = ComputeRatioView(r);
  if (rows.empty()) return "";
  std::ostringstream o;
  o << "<h2>Targets: cached setups against the bare HDD</h2><p class='note'>Printed figures, not "
       "assertions.</p><table><tr><th>setup</th>";
  for (uint32_t p = 1; p <= r.passes; ++p) o << "<th>pass " << p << "</th>";
  o << "<th>held against the target</th><th>verdict</th></tr>";
  const std::string* workload = nullptr;
  for (const RatioRow& row : rows) {
    if (!workload || *workload != row.workload) {
      o << "<tr><th colspan='" << r.passes + 3 << "' class='group'>" << Escape(RatioHeader(row))
        << "</th></tr>";
    }
    workload = &row.workload;
    o << "<tr><td class='setup' style='color:" << SetupColor(row.setup) << "'>"
      << Escape(row.setup) << "</td>";
    const auto cells = RatioCells(row);
    for (const auto& c : cells) o << "<td>" << Escape(c) << "</td>";
    for (size_t k = cells.size(); k < r.passes; ++k) o << "<td>-</td>";
    const char* verdict_class = !row.figure ? "na" : row.met ? "ok" : "missed";
    o << "<td>" << (row.kind == RatioKind::kWarmSpeedup ? "warm " : "worst ")
      << Escape(RatioFigure(row)) << "</td><td class='" << verdict_class << "'>"
      << RatioVerdict(row) << "</td></tr>";
  }
  o << "</table>";
  return o.str();
}

// hdtune: HD Tune's curve for the cold first pass and, if there are more, the warm last one.
std::string PositionCharts(const WorkloadResult& w, uint32_t passes) {
  std::vector<size_t> shown = {0};
  if (passes > 1) shown.push_back(passes - 1);
  std::string out;
  for (size_t pass : shown) {
    const std::string chart = PositionChart(w, pass);
    if (chart.empty()) continue;
    out += "<p class='note'>MB/s per position, pass " + std::to_string(pass + 1) +
           (pass == 0 ? " (cold)" : " (warm)") + ":</p>" + chart;
  }
  return out;
}

const char* const kStyle =
    "body{font-family:Verdana,Arial,sans-serif;font-size:13px;color:#222;max-width:820px;"
    "margin:24px auto}h1{font-size:20px}h2{font-size:15px;border-bottom:2px solid #2f7ed8;"
    "padding-bottom:3px;margin-top:28px}.chart text{font-size:11px;font-family:Verdana,Arial,"
    "sans-serif}table{border-collapse:collapse;margin-top:6px}td,th{border:1px solid #ccc;"
    "padding:3px 7px;text-align:right}th{background:#f0f4fa}td.setup{text-align:left;"
    "font-weight:bold}.note{color:#666}th.group{text-align:left}td.ok{color:#3a7d0a}"
    "td.missed{color:#c0392b;font-weight:bold}";

}  // namespace

std::string ToHtml(const BenchResults& r) {
  std::ostringstream o;
  o << "<!DOCTYPE html><html><head><meta charset='utf-8'><title>tiercache bench</title><style>"
    << kStyle << "</style></head><body><h1>tiercache bench</h1><p class='note'>" << (r.mode == "realtime" ? "real" : "virtual")
    << " time; HDD model " << Escape(r.hdd_profile) << ", SSD model " << Escape(r.ssd_profile)
    << ", cache " << Bytes(r.cache_bytes) << "; " << r.passes
    << " passes per workload and setup, pass 1 cold (freshly built setup); seed " << r.seed
    << ". hdd = the disk alone, ssd = the SSD alone, wt = tiercache write-through (like Smart "
       "Response Enhanced), wb = write-back (like Maximized). wt/wb engine policies: "
    << Escape(r.policies.summary()) << ".</p>";
  o << "<h2>Warm speed-up over the HDD (last pass)</h2>" << SummaryChart(r);
  for (const auto& w : r.workloads) {
    o << "<h2>" << Escape(w.name) << "</h2><p class='note'>" << Escape(w.description) << " &mdash; "
      << Escape(MetricUnit(w)) << "; bars from pale to dark: pass 1 to pass " << r.passes << ".</p>"
      << PassChart(w) << Table(w, r.passes) << PositionCharts(w, r.passes);
  }
  o << RatioTable(r) << "</body></html>\n";
  return o.str();
}

}  // namespace tiercache::bench
