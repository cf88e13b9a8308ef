// The HTML report of `tiercache sim --report FILE.html`: a self-contained page with, per trace,
// an inline SVG miss-ratio curve (x = cache size, one line per admission/replacement combination)
// and the table of results. Pure function; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "bench/sim/sim_result.h"

namespace tiercache::bench {

std::string SimHtmlReport(const std::vector<SimTraceResult>& traces);

// The miss-ratio curve of one trace as an <svg> element (one <polyline> per combination).
std::string MissRatioChart(const SimTraceResult& trace);

}  // namespace tiercache::bench
