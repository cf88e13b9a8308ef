// The JSON of `tiercache sim --json FILE`, the input of the referee's judge
// (bench/policy-eval/evaluate.py --compare; docs/sim.md gives the shape). Pure function;
// thread-safe.
#pragma once

#include <string>
#include <vector>

#include "bench/sim/sim_result.h"

namespace tiercache::bench {

// {"traces": [{"trace", "file", "results": [{"cache_bytes", "admission", "replacement",
// "default", "block_accesses", "block_misses", "miss_ratio", "ssd_bytes_written",
// "hdd_bytes_read", "requests", "policy_counters": {"admission", "replacement",
// "sequential"}}]}]}, indented by 2. "file" is the trace's path made absolute.
std::string SimJson(const std::vector<SimTraceResult>& traces);

}  // namespace tiercache::bench
