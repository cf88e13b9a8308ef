// JSON encoding of control-protocol responses (docs/cli.md, "Control protocol"): the fixed field
// names of status, stats, progress and error objects. Stateless free functions; thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "cachelib/common/status.h"
#include "cachelib/engine/cache.h"
#include "daemon/control/control_target.h"

namespace tiercache {

// Objects keep their fields in insertion order, so replies read in a stable, documented order.
using ControlJson = nlohmann::ordered_json;

// {"ok":true}
ControlJson OkResponse();
// {"ok":false,"error":"<message>","code":"<Status::CodeName>"}
ControlJson ErrorResponse(const Status& status);
// {"progress":{"dirty_lines":N}}
ControlJson ProgressResponse(uint64_t remaining_dirty_lines);
// Every CacheCounters field under its own name ("read_hits", ...), in declaration order.
ControlJson CountersToJson(const CacheCounters& counters);
// {"admission":{...},"replacement":{...},"sequential":{...}}: each policy's counters by name.
ControlJson PolicyCountersToJson(const PolicyReport& report);
// {"admission":NAME,"replacement":NAME,"sequential":{"enabled","read_cutoff_bytes",
// "write_cutoff_bytes","streams"}}: the policies of a cache (status, create, check).
ControlJson PolicyOptionsToJson(const PolicyOptions& policies);
// {"policy":"target","dirty_target":0.2,"dirty_high":0.5,"max_dirty_age_ms":30000,
//  "busy_share":0.1,"idle_after_ms":1000}: what the `cleaning` command reports and changes.
ControlJson CleaningSettingsToJson(const std::string& policy, const CleaningOptions& options);
// The status object: ControlStatus fields plus the current mode, the occupancy counters, the
// policies in use with `index_bytes` (the RAM of the line index and policies), and "cleaning":
// {policy, dirty_bytes, oldest_dirty_age_ms, flush_eta_ms (-1: unknown), clean_rate_bytes_per_s,
// last_reason, then the knobs as CleaningSettingsToJson}, then the SSD's health: "health" ("ok",
// "degraded" or "failed"), "ssd_errors" {read, write, persist} and "dirty_bytes_at_risk"; then,
// when the target reports it, "io":
// {"cache"|"core": {backend, rounds, submit_calls, ops, in_flight_sum}}.
ControlJson StatusToJson(const ControlStatus& status, CacheMode mode,
                         const CacheCounters& counters, const PolicyReport& report);
// The "latency" object of a stats reply: "bounds_ns" (the upper bounds of the finite buckets),
// then per path ("hit", "miss", "write", "flush") {"count", "sum_ns", "buckets"}, where
// buckets[i] counts the samples <= bounds_ns[i] (cumulative, as Prometheus' "le") and the last
// entry, one past the bounds, is the +Inf bucket (== count).
ControlJson LatencyToJson(const CacheLatency& latency);
// The path `path` of a "latency" object back as a snapshot; empty when absent or malformed.
LatencySnapshot LatencyFromJson(const ControlJson& latency, const char* path);
// The latency paths in reply order.
inline constexpr std::array<const char*, 4> kLatencyPaths = {"hit", "miss", "write", "flush"};
// The unsigned integer field `key` of `object`, or 0.
uint64_t JsonU64(const ControlJson& object, const char* key);
// The string field `key` of `object`, or `fallback`.
std::string JsonString(const ControlJson& object, const char* key,
                       const std::string& fallback = "?");
// The "stats" object of a stats reply: every counter (CountersToJson), "policy_counters",
// "cache_name" (CacheName of the SSD path), "health", "oldest_dirty_age_ms" and "latency".
ControlJson StatsToJson(const ControlTarget& target);
// "0123abcd-...": the 8-4-4-4-12 hex form.
std::string FormatUuid(const std::array<uint8_t, 16>& uuid);
// One protocol line: compact JSON plus '\n'. Invalid UTF-8 in strings is replaced, never thrown.
std::string ToLine(const ControlJson& value);

}  // namespace tiercache
