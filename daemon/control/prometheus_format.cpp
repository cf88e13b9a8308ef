#include "daemon/control/prometheus_format.h"

#include <cstdint>
#include <cstdio>
#include <vector>

namespace tiercache {
namespace {

// One sample: the stats field it comes from, times `scale`, and its labels (rendered, may be
// empty; the cache label is prepended).
struct Sample {
  const char* field;
  const char* labels;
  uint64_t scale = 1;
};

// One metric family: every sample of it is read from one field of the stats object.
struct Family {
  const char* name;
  const char* type;  // "counter" or "gauge"
  const char* help;
  std::vector<Sample> samples;
};

const std::vector<Family>& Families() {
  static const std::vector<Family> kFamilies = {
      {"tiercache_requests_total", "counter", "Client reads and writes by how the cache served them.",
       {{"read_hits", "op=\"read\",result=\"hit\""},
        {"read_partial_hits", "op=\"read\",result=\"partial_hit\""},
        {"read_misses", "op=\"read\",result=\"miss\""},
        {"read_bypasses", "op=\"read\",result=\"bypass\""},
        {"write_hits", "op=\"write\",result=\"hit\""},
        {"write_misses", "op=\"write\",result=\"miss\""},
        {"write_bypasses", "op=\"write\",result=\"bypass\""}}},
      {"tiercache_request_bytes_total", "counter",
       "Request bytes found (hit) or not found (miss, bypasses included) in the cache.",
       {{"read_hit_bytes", "op=\"read\",result=\"hit\""},
        {"read_miss_bytes", "op=\"read\",result=\"miss\""},
        {"write_hit_bytes", "op=\"write\",result=\"hit\""},
        {"write_miss_bytes", "op=\"write\",result=\"miss\""}}},
      {"tiercache_bytes_read_total", "counter", "Bytes read from each device.",
       {{"bytes_read_ssd", "device=\"ssd\""}, {"bytes_read_core", "device=\"core\""}}},
      {"tiercache_bytes_written_total", "counter", "Bytes written to each device.",
       {{"bytes_written_ssd", "device=\"ssd\""}, {"bytes_written_core", "device=\"core\""}}},
      {"tiercache_lines_total", "gauge", "Cache lines on the SSD.", {{"lines_total", ""}}},
      {"tiercache_lines_used", "gauge", "Cache lines holding data.", {{"lines_used", ""}}},
      {"tiercache_lines_dirty", "gauge", "Cache lines holding data not yet on the core.",
       {{"lines_dirty", ""}}},
      {"tiercache_dirty_sectors", "gauge", "4096-byte sectors not yet on the core.",
       {{"dirty_sectors", ""}}},
      {"tiercache_dirty_bytes", "gauge", "Bytes of data not yet on the core.",
       {{"dirty_sectors", "", 4096}}},
      {"tiercache_evictions_total", "counter", "Lines evicted to make room.", {{"evictions", ""}}},
      {"tiercache_cleaner_writes_total", "counter", "Core writes by the cleaner.",
       {{"cleaner_writes", ""}}},
      {"tiercache_cleaner_write_errors_total", "counter",
       "Core writes by the cleaner that failed (the lines stay dirty).",
       {{"cleaner_write_errors", ""}}},
      {"tiercache_cleaned_lines_total", "counter", "Dirty lines the cleaner made clean.",
       {{"cleaned_lines", ""}}},
      {"tiercache_fill_skipped_bytes_total", "counter",
       "Read-miss bytes not cached because the SSD was behind with earlier fills.",
       {{"fill_skipped_bytes", ""}}},
      {"tiercache_errors_total", "counter", "Client requests that failed.", {{"errors", ""}}},
      {"tiercache_flushes_total", "counter", "Client FLUSH requests.", {{"flushes", ""}}},
      {"tiercache_discards_total", "counter", "Client TRIM requests.", {{"discards", ""}}},
      {"tiercache_write_zeroes_total", "counter", "Client WRITE_ZEROES requests.",
       {{"write_zeroes", ""}}},
      {"tiercache_ssd_errors_total", "counter", "Failed SSD operations by kind.",
       {{"ssd_read_errors", "op=\"read\""},
        {"ssd_write_errors", "op=\"write\""},
        {"ssd_persist_errors", "op=\"persist\""}}},
      {"tiercache_ssd_failovers_total", "counter",
       "Times the cache took the SSD out of the data path.", {{"ssd_failovers", ""}}},
  };
  return kFamilies;
}

void AppendHeader(const char* name, const char* type, const char* help, std::string* out) {
  *out += std::string("# HELP ") + name + " " + help + "\n";
  *out += std::string("# TYPE ") + name + " " + type + "\n";
}

void AppendSample(const std::string& name, const std::string& labels, const std::string& value,
                  std::string* out) {
  *out += name + "{" + labels + "} " + value + "\n";
}

// Shortest fixed-point text of `v` (no exponent): "0.00001", "0.0025", "1".
std::string Decimal(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9f", v);
  std::string text = buf;
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text;
}

std::string Escape(const std::string& value) {
  std::string text;
  for (char c : value) {
    if (c == '\\' || c == '"') text += '\\';
    if (c == '\n') {
      text += "\\n";
      continue;
    }
    text += c;
  }
  return text;
}

// `cache="NAME"` plus `labels`.
std::string With(const std::string& cache, const std::string& labels) {
  return cache + (labels.empty() ? "" : "," + labels);
}

void AppendHealth(const ControlJson& stats, const std::string& cache, std::string* out) {
  const char* name = "tiercache_health";
  AppendHeader(name, "gauge",
               "The SSD's health: 1 for the current state (ok, degraded, failed), 0 for the others.",
               out);
  const std::string state = JsonString(stats, "health", "ok");
  for (const char* s : {"ok", "degraded", "failed"}) {
    AppendSample(name, With(cache, std::string("state=\"") + s + "\""), state == s ? "1" : "0", out);
  }
}

void AppendPolicyCounters(const ControlJson& stats, const std::string& cache, std::string* out) {
  const char* name = "tiercache_policy_events_total";
  AppendHeader(name, "counter", "Counters of the admission, replacement and sequential policies.",
               out);
  auto policies = stats.is_object() ? stats.find("policy_counters") : stats.end();
  if (policies == stats.end() || !policies->is_object()) return;
  for (const auto& policy : policies->items()) {
    if (!policy.value().is_object()) continue;
    for (const auto& counter : policy.value().items()) {
      if (!counter.value().is_number_unsigned()) continue;
      AppendSample(name, With(cache, "policy=\"" + Escape(policy.key()) + "\",name=\"" +
                                         Escape(counter.key()) + "\""),
                   std::to_string(counter.value().get<uint64_t>()), out);
    }
  }
}

void AppendLatency(const ControlJson& stats, const std::string& cache, std::string* out) {
  const char* name = "tiercache_latency_seconds";
  AppendHeader(name, "histogram",
               "Client request latency by path: hit (read from the SSD only), miss (read needing "
               "the core), write, flush.",
               out);
  const ControlJson latency = stats.is_object() ? stats.value("latency", ControlJson()) : ControlJson();
  const std::string base = std::string(name);
  for (const char* path : kLatencyPaths) {
    const LatencySnapshot s = LatencyFromJson(latency, path);
    const std::string labels = With(cache, std::string("path=\"") + path + "\"");
    for (size_t i = 0; i < kLatencyBuckets; ++i) {
      const std::string le = i < kLatencyBucketBoundsNs.size()
                                 ? Decimal(double(kLatencyBucketBoundsNs[i]) / 1e9)
                                 : "+Inf";
      AppendSample(base + "_bucket", labels + ",le=\"" + le + "\"", std::to_string(s.cumulative(i)),
                   out);
    }
    AppendSample(base + "_sum", labels, Decimal(double(s.sum_ns) / 1e9), out);
    AppendSample(base + "_count", labels, std::to_string(s.count()), out);
  }
}

}  // namespace

std::string FormatPrometheus(const ControlJson& stats) {
  const std::string cache = "cache=\"" + Escape(JsonString(stats, "cache_name", "")) + "\"";
  std::string out;
  for (const Family& family : Families()) {
    AppendHeader(family.name, family.type, family.help, &out);
    for (const Sample& sample : family.samples) {
      AppendSample(family.name, With(cache, sample.labels),
                   std::to_string(JsonU64(stats, sample.field) * sample.scale), &out);
    }
  }
  AppendHeader("tiercache_oldest_dirty_age_seconds", "gauge",
               "Age of the oldest dirty data (an upper bound).", &out);
  AppendSample("tiercache_oldest_dirty_age_seconds", cache,
               Decimal(double(JsonU64(stats, "oldest_dirty_age_ms")) / 1e3), &out);
  AppendHealth(stats, cache, &out);
  AppendPolicyCounters(stats, cache, &out);
  AppendLatency(stats, cache, &out);
  return out;
}

}  // namespace tiercache
