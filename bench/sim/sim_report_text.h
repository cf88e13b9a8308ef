// The text report of `tiercache sim`: per trace, one row per (cache size, admission/replacement)
// with miss ratio, block misses, SSD bytes written and HDD bytes read, then the policy counters.
// Pure function; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "bench/sim/sim_result.h"

namespace tiercache::bench {

std::string SimTextReport(const std::vector<SimTraceResult>& traces);

}  // namespace tiercache::bench
