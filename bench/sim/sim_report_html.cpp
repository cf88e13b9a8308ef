#include "bench/sim/sim_report_html.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "bench/runner/report_svg.h"
#include "bench/sim/sim_format.h"

namespace tiercache::bench {
namespace {

constexpr double kWidth = 760, kHeight = 330, kLeft = 56, kRight = 210, kTop = 14, kBottom = 44;
constexpr double kInset = 24;  // keeps the end points (and their labels) off the plot's edges
const char* const kPalette[] = {"#2f7ed8", "#f28f43", "#6a9f1a", "#c0392b", "#9b59b6",
                                "#16a085", "#8c6d31", "#e377c2", "#7f7f7f", "#17becf"};

struct Curve {
  std::string combo;
  bool is_default = false;
  std::vector<const SimResult*> points;  // ascending cache size
};

std::vector<Curve> Curves(const SimTraceResult& t) {
  std::vector<Curve> curves;
  for (const SimResult& r : t.results) {
    const std::string combo = r.sim_case.combo();
    auto it = std::find_if(curves.begin(), curves.end(),
                           [&](const Curve& c) { return c.combo == combo; });
    if (it == curves.end()) it = curves.insert(curves.end(), {combo, r.sim_case.is_default_policy(), {}});
    it->points.push_back(&r);
  }
  for (Curve& c : curves) {
    std::sort(c.points.begin(), c.points.end(), [](const SimResult* a, const SimResult* b) {
      return a->sim_case.cache_bytes < b->sim_case.cache_bytes;
    });
  }
  return curves;
}

// Cache sizes on a log axis (they usually grow geometrically); a single size sits in the middle.
struct XAxis {
  double lo = 1, hi = 1;
  double operator()(uint64_t bytes) const {
    const double span = kWidth - kLeft - kRight - 2 * kInset;
    if (hi <= lo) return kLeft + kInset + span / 2;
    return kLeft + kInset + span * std::log(double(bytes) / lo) / std::log(hi / lo);
  }
};

double YOf(double miss_ratio) { return kTop + (kHeight - kTop - kBottom) * (1.0 - miss_ratio); }

void Axes(std::ostringstream& o, const SimTraceResult& t, const XAxis& x) {
  for (double g : {0.0, 0.25, 0.5, 0.75, 1.0}) {
    o << "<line x1='" << kLeft << "' y1='" << SimFixed(YOf(g), 1) << "' x2='" << kWidth - kRight
      << "' y2='" << SimFixed(YOf(g), 1) << "' stroke='" << (g == 0.0 ? "#555" : "#ddd") << "'/>";
    Text(o, kLeft - 6, YOf(g) + 4, SimFixed(g, 2), "end");
  }
  std::vector<uint64_t> sizes;
  for (const SimResult& r : t.results) sizes.push_back(r.sim_case.cache_bytes);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  for (uint64_t s : sizes) Text(o, x(s), kHeight - kBottom + 16, SimBytes(s), "middle");
  Text(o, (kLeft + kWidth - kRight) / 2, kHeight - 6, "cache size (data bytes)", "middle");
  o << "<text x='14' y='" << SimFixed(YOf(0.5), 1) << "' transform='rotate(-90 14 "
    << SimFixed(YOf(0.5), 1) << ")' text-anchor='middle'>miss ratio</text>";
}

void Curve1(std::ostringstream& o, const Curve& c, const XAxis& x, const char* color, size_t k) {
  o << "<polyline fill='none' stroke='" << color << "' stroke-width='"
    << (c.is_default ? "3" : "1.8") << "' points='";
  for (const SimResult* r : c.points) {
    o << SimFixed(x(r->sim_case.cache_bytes), 1) << "," << SimFixed(YOf(r->miss_ratio()), 1)
      << " ";
  }
  o << "'/>";
  for (const SimResult* r : c.points) {
    o << "<circle cx='" << SimFixed(x(r->sim_case.cache_bytes), 1) << "' cy='"
      << SimFixed(YOf(r->miss_ratio()), 1) << "' r='3' fill='" << color << "'><title>"
      << Escape(c.combo + " at " + SimBytes(r->sim_case.cache_bytes) + ": " +
                SimFixed(r->miss_ratio(), 4))
      << "</title></circle>";
  }
  const double ly = kTop + 8 + 16 * double(k), lx = kWidth - kRight + 14;
  o << "<line x1='" << lx << "' y1='" << ly << "' x2='" << lx + 18 << "' y2='" << ly
    << "' stroke='" << color << "' stroke-width='3'/>";
  Text(o, lx + 24, ly + 4, c.combo + (c.is_default ? " (default)" : ""));
}

void ResultTable(std::ostringstream& o, const SimTraceResult& t) {
  o << "<table><tr><th>cache</th><th>admission/replacement</th><th>miss ratio</th>"
       "<th>block misses</th><th>SSD written</th><th>HDD read</th></tr>";
  for (const SimResult& r : t.results) {
    o << "<tr><td>" << SimBytes(r.sim_case.cache_bytes) << "</td><td class='combo'>"
      << Escape(r.sim_case.combo()) << (r.sim_case.is_default_policy() ? " *" : "")
      << "</td><td>" << SimFixed(r.miss_ratio(), 4) << "</td><td>" << r.block_misses()
      << "</td><td>" << SimBytes(r.ssd_bytes_written()) << "</td><td>"
      << SimBytes(r.hdd_bytes_read()) << "</td></tr>";
  }
  o << "</table>";
}

const char* const kStyle =
    "body{font-family:Verdana,Arial,sans-serif;font-size:13px;color:#222;max-width:820px;"
    "margin:24px auto}h1{font-size:20px}h2{font-size:15px;border-bottom:2px solid #2f7ed8;"
    "padding-bottom:3px;margin-top:28px}.chart text{font-size:11px;font-family:Verdana,Arial,"
    "sans-serif}table{border-collapse:collapse;margin-top:6px}td,th{border:1px solid #ccc;"
    "padding:3px 7px;text-align:right}th{background:#f0f4fa}td.combo{text-align:left}"
    ".note{color:#666}";

}  // namespace

std::string MissRatioChart(const SimTraceResult& t) {
  XAxis x;
  if (!t.results.empty()) {
    auto [lo, hi] = std::minmax_element(t.results.begin(), t.results.end(),
                                        [](const SimResult& a, const SimResult& b) {
                                          return a.sim_case.cache_bytes < b.sim_case.cache_bytes;
                                        });
    x = {double(lo->sim_case.cache_bytes), double(hi->sim_case.cache_bytes)};
  }
  std::ostringstream o;
  o << "<svg xmlns='http://www.w3.org/2000/svg' width='" << kWidth << "' height='" << kHeight
    << "' class='chart'>";
  Axes(o, t, x);
  const std::vector<Curve> curves = Curves(t);
  for (size_t k = 0; k < curves.size(); ++k) {
    Curve1(o, curves[k], x, kPalette[k % std::size(kPalette)], k);
  }
  o << "</svg>";
  return o.str();
}

std::string SimHtmlReport(const std::vector<SimTraceResult>& traces) {
  std::ostringstream o;
  o << "<!DOCTYPE html><html><head><meta charset='utf-8'><title>tiercache sim</title><style>"
    << kStyle << "</style></head><body><h1>tiercache sim</h1><p class='note'>Each point replays "
       "the trace through the engine at QD1 in virtual time; miss ratio = 4 KiB blocks not "
       "found in the cache / blocks accessed. * = the engine's default policies.</p>";
  for (const SimTraceResult& t : traces) {
    o << "<h2>" << Escape(t.trace.name) << "</h2><p class='note'>" << Escape(t.trace.format)
      << ":" << Escape(t.trace.file);
    if (!t.results.empty()) {
      const SimResult& first = t.results.front();
      o << "; " << first.requests << " requests, " << first.block_accesses
        << " block accesses; " << Escape(SimSettings(first.sim_case));
    }
    o << "</p>" << MissRatioChart(t);
    ResultTable(o, t);
  }
  o << "</body></html>\n";
  return o.str();
}

}  // namespace tiercache::bench
