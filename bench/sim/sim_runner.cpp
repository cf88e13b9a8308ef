#include "bench/sim/sim_runner.h"

#include "bench/sim/trace_simulator.h"
#include "bench/workloads/trace_import.h"

namespace tiercache::bench {

Result<std::vector<SimTraceResult>> RunSim(const SimOptions& options,
                                           const SimProgress& progress) {
  TC_RETURN_IF_ERROR(options.validate());
  const std::vector<SimCase> cases = options.cases();
  std::vector<SimTraceResult> out;
  for (const SimTraceSpec& spec : options.traces) {
    Result<Trace> trace = ImportTraceFile(spec.format, spec.file, spec.name);
    if (!trace.ok()) return trace.status();
    const TraceSimulator sim(*trace);
    SimTraceResult traced{spec, {}};
    for (const SimCase& c : cases) {
      Result<SimResult> r = sim.run(c);
      if (!r.ok()) {
        return Status::IoError(spec.name + ", " + std::to_string(c.cache_bytes) + " bytes, " +
                               c.combo() + ": " + r.status().ToString());
      }
      if (progress) progress(spec, *r);
      traced.results.push_back(std::move(r).value());
    }
    out.push_back(std::move(traced));
  }
  return out;
}

}  // namespace tiercache::bench
