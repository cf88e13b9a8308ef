// The HTML report's HD Tune chart: for one pass of the hdtune workload, MB/s (y, from 0) over the
// position in the read area (x), one SVG polyline per setup, as HD Tune draws its transfer-rate
// graph. Pure function; thread-safe.
#pragma once

#include <cstddef>
#include <string>

#include "bench/runner/bench_results.h"

namespace tiercache::bench {

// An inline <svg> for pass `pass_index` (0-based) of `w`; empty if no setup has positions there.
std::string PositionChart(const WorkloadResult& w, size_t pass_index);

}  // namespace tiercache::bench
