// The --report HTML page: self-contained (inline CSS and SVG, no scripts, no network), laid out
// like a storage review: a summary of warm speed-ups over the HDD, then per workload a bar chart
// of every pass per setup and the table of numbers (hdtune: also HD Tune's MB/s-per-position line
// chart), and at the end the ratio view's table (ratio_view.h). Pure function; thread-safe.
#pragma once

#include <string>

#include "bench/runner/bench_results.h"

namespace tiercache::bench {

std::string ToHtml(const BenchResults& results);

}  // namespace tiercache::bench
