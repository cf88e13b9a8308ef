#include "daemon/control/control_json.h"

#include <cstdio>

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
  j["bytes_read_ssd"] = c.bytes_read_ssd;
  j["bytes_written_ssd"] = c.bytes_written_ssd;
  j["bytes_read_core"] = c.bytes_read_core;
  j["bytes_written_core"] = c.bytes_written_core;
  j["lines_total"] = c.lines_total;
  j["lines_used"] = c.lines_used;
  j["lines_dirty"] = c.lines_dirty;
  j["dirty_sectors"] = c.dirty_sectors;
  j["evictions"] = c.evictions;
  j["cleaner_writes"] = c.cleaner_writes;
  j["cleaned_lines"] = c.cleaned_lines;
  j["errors"] = c.errors;
  j["flushes"] = c.flushes;
  j["discards"] = c.discards;
  j["write_zeroes"] = c.write_zeroes;
  return j;
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

json StatusToJson(const ControlStatus& s, CacheMode mode, const CacheCounters& counters) {
  const SuperblockInfo& sb = s.superblock;
  json j = json::object();
  j["state"] = s.state;
  j["pid"] = s.pid;
  j["uptime_seconds"] = s.uptime_seconds;
  j["cache"] = s.cache_path;
  j["core"] = s.core_path;
  j["export"] = s.export_path;
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
  return j;
}

std::string ToLine(const json& value) {
  std::string line = value.dump(-1, ' ', false, json::error_handler_t::replace);
  line += '\n';
  return line;
}

}  // namespace tiercache
