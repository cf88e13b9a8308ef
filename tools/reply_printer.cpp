#include "tools/reply_printer.h"

#include <cstdio>
#include <set>

#include "tools/size_parser.h"

namespace tiercache {
namespace {

// The counters PrintStats places itself; anything else is printed as "name: value".
const std::set<std::string> kKnownCounters = {
    "read_hits",      "read_partial_hits", "read_misses",     "write_hits",
    "write_misses",   "read_bypasses",     "write_bypasses",  "bytes_read_ssd",
    "bytes_written_ssd", "bytes_read_core", "bytes_written_core", "lines_total",
    "lines_used",     "lines_dirty",       "dirty_sectors",   "evictions",
    "cleaner_writes", "cleaned_lines",     "errors",          "flushes",
    "discards",       "write_zeroes"};

std::string N(uint64_t v) { return std::to_string(v); }

}  // namespace

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

std::string Percent(uint64_t part, uint64_t whole) {
  if (whole == 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * double(part) / double(whole));
  return buf;
}

void PrintStatus(const ControlJson& s, std::ostream& out) {
  uint64_t lines = JsonU64(s, "line_count");
  uint64_t used = JsonU64(s, "lines_used");
  uint64_t dirty = JsonU64(s, "lines_dirty");
  std::string exported = JsonString(s, "export", "");
  auto clean_it = s.is_object() ? s.find("clean_shutdown_at_open") : s.end();
  bool clean = clean_it != s.end() && clean_it->is_boolean() && clean_it->get<bool>();
  out << "state:      " << JsonString(s, "state") << " (pid " << JsonU64(s, "pid") << ", up "
      << JsonU64(s, "uptime_seconds") << " s)\n"
      << "cache:      " << JsonString(s, "cache") << " (" << FormatSize(JsonU64(s, "cache_size"))
      << ")\n"
      << "core:       " << JsonString(s, "core") << " (" << FormatSize(JsonU64(s, "core_size"))
      << ")\n"
      << "export:     " << (exported.empty() ? "none" : exported) << "\n"
      << "mode:       " << JsonString(s, "mode") << "\n"
      << "line size:  " << FormatSize(JsonU64(s, "line_size")) << "\n"
      << "lines:      " << lines << " total, " << used << " used (" << Percent(used, lines)
      << "), " << dirty << " dirty (" << Percent(dirty, lines) << ")\n"
      << "uuid:       " << JsonString(s, "uuid") << "\n"
      << "format:     version " << JsonU64(s, "format_version") << ", previous shutdown "
      << (clean ? "clean" : "unclean (dirty lines recovered)") << "\n";
}

void PrintStats(const ControlJson& c, std::ostream& out) {
  auto v = [&c](const char* key) { return JsonU64(c, key); };
  uint64_t reads = v("read_hits") + v("read_partial_hits") + v("read_misses");
  uint64_t writes = v("write_hits") + v("write_misses");
  out << "reads:      " << N(v("read_hits")) << " hits, " << N(v("read_partial_hits"))
      << " partial hits, " << N(v("read_misses")) << " misses (hit ratio "
      << Percent(v("read_hits"), reads) << ")\n"
      << "writes:     " << N(v("write_hits")) << " hits, " << N(v("write_misses"))
      << " misses (hit ratio " << Percent(v("write_hits"), writes) << ")\n"
      << "bypassed:   " << N(v("read_bypasses")) << " reads, " << N(v("write_bypasses"))
      << " writes\n"
      << "ssd:        " << FormatSize(v("bytes_read_ssd")) << " read, "
      << FormatSize(v("bytes_written_ssd")) << " written\n"
      << "core:       " << FormatSize(v("bytes_read_core")) << " read, "
      << FormatSize(v("bytes_written_core")) << " written\n"
      << "lines:      " << N(v("lines_total")) << " total, " << N(v("lines_used")) << " used, "
      << N(v("lines_dirty")) << " dirty (" << N(v("dirty_sectors")) << " dirty sectors)\n"
      << "cleaning:   " << N(v("evictions")) << " evictions, " << N(v("cleaner_writes"))
      << " cleaner writes, " << N(v("cleaned_lines")) << " lines cleaned\n"
      << "requests:   " << N(v("flushes")) << " flushes, " << N(v("discards")) << " discards, "
      << N(v("write_zeroes")) << " write-zeroes\n"
      << "errors:     " << N(v("errors")) << "\n";
  if (!c.is_object()) return;
  for (const auto& item : c.items()) {
    if (kKnownCounters.count(item.key()) == 0) {
      out << item.key() << ": " << ToLine(item.value());  // ToLine ends with '\n'
    }
  }
}

}  // namespace tiercache
