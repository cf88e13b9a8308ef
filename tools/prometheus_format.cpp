#include "tools/prometheus_format.h"

#include <cstdint>
#include <vector>

#include "tools/reply_printer.h"

namespace tiercache {
namespace {

// One sample: the stats field it comes from and its labels (already rendered, may be empty).
struct Sample {
  const char* field;
  const char* labels;
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
      {"tiercache_dirty_sectors", "gauge", "512-byte sectors not yet on the core.",
       {{"dirty_sectors", ""}}},
      {"tiercache_evictions_total", "counter", "Lines evicted to make room.", {{"evictions", ""}}},
      {"tiercache_cleaner_writes_total", "counter", "Core writes by the cleaner.",
       {{"cleaner_writes", ""}}},
      {"tiercache_cleaned_lines_total", "counter", "Dirty lines the cleaner made clean.",
       {{"cleaned_lines", ""}}},
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

void AppendSample(const std::string& name, const std::string& labels, uint64_t value,
                  std::string* out) {
  *out += name + (labels.empty() ? "" : "{" + labels + "}") + " " + std::to_string(value) + "\n";
}

// Label values are policy counter names (snake_case) and policy kinds; escape anyway.
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

void AppendPolicyCounters(const ControlJson& stats, std::string* out) {
  const char* name = "tiercache_policy_events_total";
  AppendHeader(name, "counter", "Counters of the admission, replacement and sequential policies.",
               out);
  auto policies = stats.is_object() ? stats.find("policy_counters") : stats.end();
  if (policies == stats.end() || !policies->is_object()) return;
  for (const auto& policy : policies->items()) {
    if (!policy.value().is_object()) continue;
    for (const auto& counter : policy.value().items()) {
      if (!counter.value().is_number_unsigned()) continue;
      AppendSample(name, "policy=\"" + Escape(policy.key()) + "\",name=\"" +
                             Escape(counter.key()) + "\"",
                   counter.value().get<uint64_t>(), out);
    }
  }
}

}  // namespace

std::string FormatPrometheus(const ControlJson& stats) {
  std::string out;
  for (const Family& family : Families()) {
    AppendHeader(family.name, family.type, family.help, &out);
    for (const Sample& sample : family.samples) {
      AppendSample(family.name, sample.labels, JsonU64(stats, sample.field), &out);
    }
  }
  AppendPolicyCounters(stats, &out);
  return out;
}

}  // namespace tiercache
