#include "daemon/control/control_json.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "daemon/control/control_paths.h"

namespace tiercache {

using json = ControlJson;

json OkResponse() { return json{{"ok", true}}; }

json ErrorResponse(const Status& status) {
  return json{{"ok", false},
              {"error", status.message()},
              {"code", std::string(Status::CodeName(status.code()))}};
}

json ProgressResponse(uint64_t remaining_dirty_lines) {
  return json{{"progress", {{"dirty_lines", remaining_dirty_lines}}}};
}

json CountersToJson(const CacheCounters& c) {
  json j = json::object();
  j["read_hits"] = c.read_hits;
  j["read_partial_hits"] = c.read_partial_hits;
  j["read_misses"] = c.read_misses;
  j["write_hits"] = c.write_hits;
  j["write_misses"] = c.write_misses;
  j["read_bypasses"] = c.read_bypasses;
  j["write_bypasses"] = c.write_bypasses;
  j["read_hit_bytes"] = c.read_hit_bytes;
  j["read_miss_bytes"] = c.read_miss_bytes;
  j["write_hit_bytes"] = c.write_hit_bytes;
  j["write_miss_bytes"] = c.write_miss_bytes;
  j["bytes_read_ssd"] = c.bytes_read_ssd;
  j["bytes_written_ssd"] = c.bytes_written_ssd;
  j["bytes_read_core"] = c.bytes_read_core;
  j["bytes_written_core"] = c.bytes_written_core;
  j["lines_total"] = c.lines_total;
  j["lines_used"] = c.lines_used;
  j["lines_dirty"] = c.lines_dirty;
  j["dirty_sectors"] = c.dirty_sectors;
  j["lines_untrusted"] = c.lines_untrusted;
  j["evictions"] = c.evictions;
  j["cleaner_writes"] = c.cleaner_writes;
  j["cleaner_write_errors"] = c.cleaner_write_errors;
  j["cleaned_lines"] = c.cleaned_lines;
  j["fill_skipped_bytes"] = c.fill_skipped_bytes;
  j["errors"] = c.errors;
  j["flushes"] = c.flushes;
  j["discards"] = c.discards;
  j["write_zeroes"] = c.write_zeroes;
  j["ssd_read_errors"] = c.ssd_read_errors;
  j["ssd_write_errors"] = c.ssd_write_errors;
  j["ssd_persist_errors"] = c.ssd_persist_errors;
  j["ssd_failovers"] = c.ssd_failovers;
  return j;
}

json PolicyCountersToJson(const PolicyReport& report) {
  auto object = [](const PolicyReport::Counters& counters) {
    json j = json::object();
    for (const auto& [name, value] : counters) j[name] = value;
    return j;
  };
  json j = json::object();
  j["admission"] = object(report.admission_counters);
  j["replacement"] = object(report.replacement_counters);
  j["sequential"] = object(report.sequential_counters);
  j["cleaning"] = object(report.cleaning_counters);
  return j;
}

json PolicyOptionsToJson(const PolicyOptions& p) {
  json sequential = json::object();
  sequential["enabled"] = p.sequential.enabled;
  sequential["read_cutoff_bytes"] = p.sequential.read_cutoff_bytes;
  sequential["write_cutoff_bytes"] = p.sequential.write_cutoff_bytes;
  sequential["streams"] = p.sequential.streams;
  json j = json::object();
  j["admission"] = p.admission;
  j["replacement"] = p.replacement;
  j["sequential"] = std::move(sequential);
  return j;
}

namespace {

json SnapshotToJson(const LatencySnapshot& s) {
  json buckets = json::array();
  for (size_t i = 0; i < kLatencyBuckets; ++i) buckets.push_back(s.cumulative(i));
  return json{{"count", s.count()}, {"sum_ns", s.sum_ns}, {"buckets", std::move(buckets)}};
}

}  // namespace

json LatencyToJson(const CacheLatency& l) {
  json j = json::object();
  j["bounds_ns"] = kLatencyBucketBoundsNs;
  j["hit"] = SnapshotToJson(l.hit);
  j["miss"] = SnapshotToJson(l.miss);
  j["write"] = SnapshotToJson(l.write);
  j["flush"] = SnapshotToJson(l.flush);
  return j;
}

LatencySnapshot LatencyFromJson(const ControlJson& latency, const char* path) {
  LatencySnapshot s;
  if (!latency.is_object() || !latency.contains(path)) return s;
  const json& p = latency[path];
  auto buckets = p.is_object() ? p.find("buckets") : p.end();
  if (buckets == p.end() || !buckets->is_array() || buckets->size() != kLatencyBuckets) return s;
  uint64_t below = 0;
  for (size_t i = 0; i < kLatencyBuckets; ++i) {
    const json& v = (*buckets)[i];
    const uint64_t cumulative = v.is_number_unsigned() ? v.get<uint64_t>() : 0;
    s.buckets[i] = cumulative >= below ? cumulative - below : 0;
    below = std::max(below, cumulative);
  }
  s.sum_ns = JsonU64(p, "sum_ns");
  return s;
}

uint64_t JsonU64(const ControlJson& object, const char* key) {
  if (!object.is_object()) return 0;
  auto it = object.find(key);
  if (it == object.end() || !it->is_number_unsigned()) return 0;
  return it->get<uint64_t>();
}

std::string JsonString(const ControlJson& object, const char* key, const std::string& fallback) {
  if (!object.is_object()) return fallback;
  auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return fallback;
  return it->get<std::string>();
}

json StatsToJson(const ControlTarget& target) {
  const PolicyReport report = target.policy_report();
  const ControlStatus status = target.status();
  json stats = CountersToJson(target.counters());
  stats["policy_counters"] = PolicyCountersToJson(report);
  stats["cache_name"] = CacheName(status.cache_path);
  stats["health"] = status.health.state;
  stats["oldest_dirty_age_ms"] = uint64_t(std::max<int64_t>(0, report.oldest_dirty_age_ns / 1000000));
  stats["latency"] = LatencyToJson(target.latency());
  return stats;
}

std::string FormatUuid(const std::array<uint8_t, 16>& uuid) {
  std::string out;
  char hex[3];
  for (size_t i = 0; i < uuid.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    std::snprintf(hex, sizeof hex, "%02x", uuid[i]);
    out += hex;
  }
  return out;
}

namespace {

// The knobs of `o`, added to `j` (after what it already holds).
void AddCleaningKnobs(const CleaningOptions& o, json& j) {
  auto ms = [](Nanos t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(t).count();
  };
  j["dirty_target"] = o.dirty_target;
  j["dirty_high"] = o.dirty_high;
  j["max_dirty_age_ms"] = ms(o.max_dirty_age);
  j["busy_share"] = o.busy_share;
  j["idle_after_ms"] = ms(o.idle_after);
}

}  // namespace

json CleaningToJson(const PolicyReport& r, const CacheCounters& counters) {
  json j = json::object();
  j["policy"] = r.cleaning;
  j["dirty_bytes"] = counters.dirty_sectors * 4096;
  j["oldest_dirty_age_ms"] = r.oldest_dirty_age_ns / 1000000;
  j["flush_eta_ms"] = r.flush_eta_ns < 0 ? int64_t{-1} : r.flush_eta_ns / 1000000;
  j["clean_rate_bytes_per_s"] = r.clean_rate_bytes_per_s;
  j["last_reason"] = r.cleaning_reason;
  j["last_error"] = r.cleaning_error;
  AddCleaningKnobs(r.cleaning_options, j);
  return j;
}

ControlJson CleaningSettingsToJson(const std::string& policy, const CleaningOptions& options) {
  json j = json::object();
  j["policy"] = policy;
  AddCleaningKnobs(options, j);
  return j;
}

json DeviceIoToJson(const DeviceIoStatus& io) {
  json j = json::object();
  j["backend"] = io.backend;
  j["rounds"] = io.counters.rounds;
  j["submit_calls"] = io.counters.submit_calls;
  j["ops"] = io.counters.ops;
  j["in_flight_sum"] = io.counters.in_flight_sum;
  j["merged"] = io.counters.merged;
  j["fixed_buffers"] = io.counters.fixed_buffers;
  return j;
}

json StatusToJson(const ControlStatus& s, CacheMode mode, const CacheCounters& counters,
                  const PolicyReport& report) {
  const SuperblockInfo& sb = s.superblock;
  json j = json::object();
  j["state"] = s.state;
  j["pid"] = s.pid;
  j["uptime_seconds"] = s.uptime_seconds;
  j["cache"] = s.cache_path;
  j["core"] = s.core_path;
  j["export"] = s.export_path;
  if (!s.export_io.empty()) j["export_io"] = s.export_io;
  j["mode"] = std::string(ModeName(mode));
  j["cache_size"] = s.cache_size;
  j["core_size"] = s.core_size;
  j["uuid"] = FormatUuid(sb.uuid);
  j["format_version"] = sb.version;
  j["line_size"] = sb.line_size;
  j["line_count"] = sb.line_count;
  j["lines_used"] = counters.lines_used;
  j["lines_dirty"] = counters.lines_dirty;
  j["clean_shutdown_at_open"] = sb.was_clean_shutdown;
  j["policies"] = PolicyOptionsToJson(s.policies);
  j["policies"]["index_bytes"] = report.index_bytes;
  j["cleaning"] = CleaningToJson(report, counters);
  j["health"] = s.health.state;
  j["ssd_errors"] = json{{"read", s.health.read_errors},
                         {"write", s.health.write_errors},
                         {"persist", s.health.persist_errors}};
  j["dirty_bytes_at_risk"] = s.health.dirty_bytes_at_risk;
  if (!s.cache_io.backend.empty()) {
    j["io"] = json{{"cache", DeviceIoToJson(s.cache_io)}, {"core", DeviceIoToJson(s.core_io)}};
  }
  if (s.metadata.journal_blocks != 0) {
    j["metadata"] = json{{"journal_rounds", s.metadata.journal_rounds},
                         {"steps", s.metadata.steps},
                         {"checkpoints", s.metadata.checkpoints},
                         {"journal_blocks_used", s.metadata.journal_blocks_used},
                         {"journal_blocks", s.metadata.journal_blocks}};
  }
  return j;
}

std::string ToLine(const json& value) {
  std::string line = value.dump(-1, ' ', false, json::error_handler_t::replace);
  line += '\n';
  return line;
}

}  // namespace tiercache
