#include "bench/runner/position_chart.h"

#include <algorithm>
#include <sstream>

#include "bench/runner/report_svg.h"

namespace tiercache::bench {
namespace {

constexpr int kWidth = 760, kHeight = 240, kLeft = 60, kRight = 80, kTop = 10, kBottom = 30;

const std::vector<PositionResult>* PassPositions(const SetupResult& s, size_t pass) {
  if (!s.error.empty() || pass >= s.passes.size() || s.passes[pass].positions.empty()) {
    return nullptr;
  }
  return &s.passes[pass].positions;
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
  const double span_x = kWidth - kLeft - kRight, span_y = kHeight - kTop - kBottom;
  auto x_of = [&](uint64_t off) {
    return kLeft + (max_offset ? span_x * static_cast<double>(off) / max_offset : 0);
  };
  auto y_of = [&](double rate) { return kTop + span_y * (1 - rate / max_rate); };
  std::ostringstream o;
  o << "<svg xmlns='http://www.w3.org/2000/svg' width='" << kWidth << "' height='" << kHeight
    << "' class='chart'>";
  for (double f : {0.0, 0.25, 0.5, 0.75, 1.0}) {
    o << "<line x1='" << kLeft << "' y1='" << Fixed(y_of(f * max_rate), 1) << "' x2='"
      << kLeft + span_x << "' y2='" << Fixed(y_of(f * max_rate), 1) << "' stroke='"
      << (f == 0 ? "#333" : "#ddd") << "'/>";
    Text(o, kLeft - 6, y_of(f * max_rate) + 4, f == 0 ? "0" : Figure(f * max_rate), "end");
  }
  Text(o, kLeft, kHeight - 10, "0");
  Text(o, kLeft + span_x / 2, kHeight - 10, "position in the area; y: MB/s", "middle");
  Text(o, kLeft + span_x, kHeight - 10, MiB(max_offset), "end");
  int legend = 0;
  for (const auto& s : w.setups) {
    const auto* pos = PassPositions(s, pass);
    if (!pos) continue;
    o << "<polyline fill='none' stroke='" << SetupColor(s.name) << "' stroke-width='1.5' points='";
    for (size_t k = 0; k < pos->size(); ++k) {
      o << (k ? " " : "") << Fixed(x_of((*pos)[k].offset), 1) << ","
        << Fixed(y_of((*pos)[k].mb_per_s), 1);
    }
    o << "'/>";
    Rect(o, kLeft + span_x + 12, kTop + 16 * legend, 10, 10, SetupColor(s.name), 1.0);
    Text(o, kLeft + span_x + 26, kTop + 16 * legend + 9, s.name);
    ++legend;
  }
  o << "</svg>";
  return o.str();
}

}  // namespace tiercache::bench
