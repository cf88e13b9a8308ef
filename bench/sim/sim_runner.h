// RunSim: the whole `tiercache sim` run — import each trace (bench/workloads importers), then
// replay it through every SimCase with a TraceSimulator, one case after the other. Stateless free
// function; thread-safe (each call builds its own caches).
#pragma once

#include <functional>
#include <vector>

#include "bench/sim/sim_options.h"
#include "bench/sim/sim_result.h"

namespace tiercache::bench {

// Called after each case finishes, e.g. to print progress.
using SimProgress = std::function<void(const SimTraceSpec&, const SimResult&)>;

// Validates `options`, then runs every trace x case. Fails on the first import or replay error.
Result<std::vector<SimTraceResult>> RunSim(const SimOptions& options,
                                           const SimProgress& progress = nullptr);

}  // namespace tiercache::bench
