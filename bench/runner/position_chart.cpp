#include "bench/runner/position_chart.h"

#include <algorithm>
#include <sstream>

#include "bench/runner/report_svg.h"

namespace tiercache::bench {
namespace {

constexpr int kWidth = 760, kHeight = 240, kLeft = 60, kRight = 80, kTop = 10, kBottom = 30;
constexpr double kSpanX = kWidth - kLeft - kRight, kSpanY = kHeight - kTop - kBottom;

const std::vector<PositionResult>* PassPositions(const SetupResult& s, size_t pass) {
  if (!s.error.empty() || pass >= s.passes.size() || s.passes[pass].positions.empty()) {
    return nullptr;
  }
  return &s.passes[pass].positions;
}

double XOf(uint64_t offset, uint64_t max_offset) {
  return kLeft + (max_offset ? kSpanX * static_cast<double>(offset) / max_offset : 0);
}

double YOf(double rate, double max_rate) { return kTop + kSpanY * (1 - rate / max_rate); }

// Horizontal grid lines labelled in MB/s from 0 to max_rate; the x axis from 0 to max_offset.
void Axes(std::ostringstream& o, uint64_t max_offset, double max_rate) {
  for (double f : {0.0, 0.25, 0.5, 0.75, 1.0}) {
    const std::string y = Fixed(YOf(f * max_rate, max_rate), 1);
    o << "<line x1='" << kLeft << "' y1='" << y << "' x2='" << kLeft + kSpanX << "' y2='" << y
      << "' stroke='" << (f == 0 ? "#333" : "#ddd") << "'/>";
    Text(o, kLeft - 6, YOf(f * max_rate, max_rate) + 4, f == 0 ? "0" : Figure(f * max_rate),
         "end");
  }
  Text(o, kLeft, kHeight - 10, "0");
  Text(o, kLeft + kSpanX / 2, kHeight - 10, "position in the area; y: MB/s", "middle");
  Text(o, kLeft + kSpanX, kHeight - 10, MiB(max_offset), "end");
}

}  // namespace

std::string PositionChart(const WorkloadResult& w, size_t pass) {
  uint64_t max_offset = 0;
  double max_rate = 0;
  int lines = 0;
  for (const auto& s : w.setups) {
    const auto* pos = PassPositions(s, pass);
    if (!pos) continue;
    ++lines;
    for (const auto& p : *pos) {
      max_offset = std::max(max_offset, p.offset);
      max_rate = std::max(max_rate, p.mb_per_s);
    }
  }
  if (lines == 0) return "";
  if (max_rate <= 0) max_rate = 1;
  std::ostringstream o;
  o << "<svg xmlns='http://www.w3.org/2000/svg' width='" << kWidth << "' height='" << kHeight
    << "' class='chart'>";
  Axes(o, max_offset, max_rate);
  int legend = 0;
  for (const auto& s : w.setups) {
    const auto* pos = PassPositions(s, pass);
    if (!pos) continue;
    o << "<polyline fill='none' stroke='" << SetupColor(s.name) << "' stroke-width='1.5' points='";
    for (size_t k = 0; k < pos->size(); ++k) {
      o << (k ? " " : "") << Fixed(XOf((*pos)[k].offset, max_offset), 1) << ","
        << Fixed(YOf((*pos)[k].mb_per_s, max_rate), 1);
    }
    o << "'/>";
    Rect(o, kLeft + kSpanX + 12, kTop + 16 * legend, 10, 10, SetupColor(s.name), 1.0);
    Text(o, kLeft + kSpanX + 26, kTop + 16 * legend + 9, s.name);
    ++legend;
  }
  o << "</svg>";
  return o.str();
}

}  // namespace tiercache::bench
