// SVG and HTML pieces shared by the HTML report's charts: escaping, setup colours, rectangles and
// labels. Pure functions; thread-safe.
#pragma once

#include <sstream>
#include <string>

#include "bench/runner/report_format.h"

namespace tiercache::bench {

inline std::string Escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

inline std::string SetupColor(const std::string& name) {
  if (name == "hdd") return "#8c8c8c";
  if (name == "ssd") return "#2f7ed8";
  if (name == "wt") return "#f28f43";
  if (name == "wb") return "#6a9f1a";
  return "#9b59b6";
}

inline void Rect(std::ostringstream& o, double x, double y, double w, double h,
                 const std::string& fill, double opacity) {
  o << "<rect x='" << Fixed(x, 1) << "' y='" << Fixed(y, 1) << "' width='" << Fixed(w, 1)
    << "' height='" << Fixed(h, 1) << "' fill='" << fill << "' fill-opacity='" << Fixed(opacity, 2)
    << "'/>";
}

inline void Text(std::ostringstream& o, double x, double y, const std::string& s,
                 const char* anchor = "start") {
  o << "<text x='" << Fixed(x, 1) << "' y='" << Fixed(y, 1) << "' text-anchor='" << anchor
    << "'>" << Escape(s) << "</text>";
}

}  // namespace tiercache::bench
