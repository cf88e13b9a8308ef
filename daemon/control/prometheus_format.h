// Renders the "stats" object of a stats reply in the Prometheus text exposition format 0.0.4
// (`tiercache stats --prometheus`, tiercached --metrics; metric names in docs/metrics.md). A pure
// function of its input; missing counters print as 0 so a newer or older daemon's replies still
// render. Thread-safe.
#pragma once

#include <string>

#include "daemon/control/control_json.h"

namespace tiercache {

// Every known counter of `stats` as tiercache_* samples with # HELP and # TYPE lines, the SSD
// health as one tiercache_health sample per state (1 for the current one), each numeric policy
// counter under "policy_counters" as tiercache_policy_events_total, and the latency histograms as
// tiercache_latency_seconds{path=...}. Every sample carries cache="<stats.cache_name>".
std::string FormatPrometheus(const ControlJson& stats);

}  // namespace tiercache
