// The --json report for scripts: {"workloads": [{"name", "metric", "setups": [{"name", "passes":
// [{"seconds", "mb_per_s", "iops", "hit_ratio", "ssd_bytes_written", ..., and for hdtune
// "positions": [{"offset", "mb_per_s"}]}]}]}], plus run details and the wt/wb policy options
// (null: engine default). hit_ratio is null for setups without a cache. Pure functions;
// thread-safe.
#pragma once

#include <string>

#include "bench/runner/bench_results.h"
#include "cachelib/common/status.h"

namespace tiercache::bench {

std::string ToJsonText(const BenchResults& results);
// Writes `text` to `path` (replacing it).
Status WriteTextFile(const std::string& path, const std::string& text);

}  // namespace tiercache::bench
