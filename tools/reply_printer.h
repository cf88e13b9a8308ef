// Human-readable rendering of control-protocol replies (the default output of `tiercache status`
// and `tiercache stats`; --json prints the replies themselves). Missing or mistyped fields print
// as 0 or "?" instead of failing, so a newer daemon's replies still print. Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "daemon/control/control_json.h"

namespace tiercache {

// JsonU64 and JsonString (control_json.h) read fields of replies leniently.

// The "status" object of a status reply.
void PrintStatus(const ControlJson& status, std::ostream& out);
// The "stats" object of a stats reply; counters this version does not know are listed at the end.
void PrintStats(const ControlJson& stats, std::ostream& out);
// One line for a "policies" object (PolicyOptionsToJson, with "index_bytes" in a status):
// "admission always, replacement lru, sequential cutoff 1 MiB, index 200 KiB of RAM".
std::string DescribePolicies(const ControlJson& policies);
// One line for a cleaning settings object (CleaningSettingsToJson): "target; dirty target 20%,
// high 50%, max age 30 s, busy share 10%, idle after 1 s".
std::string DescribeCleaningSettings(const ControlJson& settings);
// A latency for people: "38 us" below 1 ms, "2.50 ms" below 1 s, "1.00 s" above.
std::string FormatLatency(Nanos latency);
// "p50 38 us, p99 99 us, p99.9 100 us (4 requests)" (LatencySnapshot::quantile), or
// "no requests".
std::string DescribeLatency(const LatencySnapshot& latency);
// "12.5%" (one decimal) of part/whole; "-" when whole is 0.
std::string Percent(uint64_t part, uint64_t whole);

}  // namespace tiercache
