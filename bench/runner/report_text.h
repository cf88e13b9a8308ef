// The terminal report: one table per workload (per setup: every pass, warm speed-up vs hdd,
// last-pass hit ratio, SSD bytes written over all passes; for hdtune also the positions'
// min/avg/max and worst ratio to hdd), then the ratio view (ratio_view.h). Pure function;
// thread-safe.
#pragma once

#include <string>

#include "bench/runner/bench_results.h"

namespace tiercache::bench {

std::string FormatTextReport(const BenchResults& results);

}  // namespace tiercache::bench
