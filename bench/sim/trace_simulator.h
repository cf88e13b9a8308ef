// TraceSimulator: replays one trace through the real engine (tiercache::Cache) for a SimCase, in
// virtual time on a SimEventLoop, over a data-less SSD (SimSsdDevice) and core (SimCoreDevice).
// Requests go one at a time in trace order (QD1), and the loop runs until idle after each, so the
// fills and cleaning a request starts finish before the next one. Holds the trace's ReplayPlan;
// run() is const and builds a fresh cache each call, so one simulator serves many cases.
// Thread-compatible (concurrent run() calls are safe: each has its own loop and devices).
#pragma once

#include "bench/sim/replay_plan.h"
#include "bench/sim/sim_result.h"

namespace tiercache::bench {

class TraceSimulator {
 public:
  explicit TraceSimulator(const Trace& trace) : plan_(trace) {}

  const ReplayPlan& plan() const { return plan_; }
  // Formats and opens a cache for `c`, replays the plan, and returns the counters. Fails with the
  // engine's status (e.g. an unknown policy) or the first failed request's.
  Result<SimResult> run(const SimCase& c) const;

 private:
  ReplayPlan plan_;
};

}  // namespace tiercache::bench
