// The terminal report: one table per workload (per setup: every pass, warm speed-up vs hdd,
// last-pass hit ratio, SSD bytes written over all passes). Pure function; thread-safe.
#pragma once

#include <string>

#include "bench/runner/bench_results.h"

namespace tiercache::bench {

std::string FormatTextReport(const BenchResults& results);

}  // namespace tiercache::bench
