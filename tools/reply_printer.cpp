#include "tools/reply_printer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>

#include "cachelib/common/size_parser.h"
#include "policy/cleaning/cleaning_options.h"

namespace tiercache {
namespace {

// The counters PrintStats places itself; anything else is printed as "name: value".
const std::set<std::string> kKnownCounters = {
    "read_hits",      "read_partial_hits", "read_misses",     "write_hits",
    "write_misses",   "read_bypasses",     "write_bypasses",  "read_hit_bytes",
    "read_miss_bytes", "write_hit_bytes",  "write_miss_bytes", "bytes_read_ssd",
    "bytes_written_ssd", "bytes_read_core", "bytes_written_core", "lines_total",
    "lines_used",     "lines_dirty",       "dirty_sectors",   "lines_untrusted", "evictions",
    "cleaner_writes", "cleaner_write_errors", "cleaned_lines", "fill_skipped_bytes", "errors",
    "flushes",
    "discards",       "write_zeroes",      "policy_counters", "ssd_read_errors",
    "ssd_write_errors", "ssd_persist_errors", "ssd_failovers", "cache_name", "health",
    "oldest_dirty_age_ms", "latency"};

// The sequential counters the "sequential:" line words itself.
const std::set<std::string> kSequentialCounters = {
    "bypassed_read_bytes", "bypassed_write_bytes", "bypassed_read_requests",
    "bypassed_write_requests", "repeated_read_bytes", "repeated_read_requests", "room_read_bytes",
    "room_read_requests", "streams_tracked"};

std::string N(uint64_t v) { return std::to_string(v); }

// "12 admitted, 0 refused": every counter of `object` but `skip`, as "value name words".
std::string CounterList(const ControlJson& object, const std::set<std::string>& skip = {}) {
  std::string text;
  if (!object.is_object()) return text;
  for (const auto& item : object.items()) {
    if (skip.count(item.key()) != 0) continue;
    std::string words = item.key();
    for (char& ch : words) ch = ch == '_' ? ' ' : ch;
    text += (text.empty() ? "" : ", ") + N(JsonU64(object, item.key().c_str())) + " " + words;
  }
  return text;
}

// The policy lines of `tiercache stats`; none for a daemon that sends no policy counters.
void PrintPolicyCounters(const ControlJson& counters, std::ostream& out) {
  if (!counters.is_object()) return;
  auto list = [](const ControlJson& object) {
    std::string text = CounterList(object);
    return text.empty() ? "no counters" : text;
  };
  ControlJson seq = counters.value("sequential", ControlJson::object());
  auto v = [&seq](const char* key) { return JsonU64(seq, key); };
  std::string extra = CounterList(seq, kSequentialCounters);
  out << "admission:  " << list(counters.value("admission", ControlJson::object())) << "\n"
      << "replacement: " << list(counters.value("replacement", ControlJson::object())) << "\n"
      << "sequential: bypassed " << FormatSize(v("bypassed_read_bytes")) << " read ("
      << N(v("bypassed_read_requests")) << " requests), " << FormatSize(v("bypassed_write_bytes"))
      << " written (" << N(v("bypassed_write_requests")) << " requests); reads past the cutoff "
      << "cached: " << FormatSize(v("repeated_read_bytes")) << " read again ("
      << N(v("repeated_read_requests")) << " requests), " << FormatSize(v("room_read_bytes"))
      << " while the cache had room (" << N(v("room_read_requests")) << " requests); "
      << N(v("streams_tracked")) << " streams tracked" << (extra.empty() ? "" : "; " + extra)
      << "\n";
}

// "1 MiB", "1 MiB reads, 4 MiB writes" or "off".
std::string DescribeCutoffs(const ControlJson& seq) {
  auto enabled = seq.is_object() ? seq.find("enabled") : seq.end();
  if (enabled != seq.end() && enabled->is_boolean() && !enabled->get<bool>()) return "off";
  uint64_t read = JsonU64(seq, "read_cutoff_bytes");
  uint64_t write = JsonU64(seq, "write_cutoff_bytes");
  if (read == write) return FormatSize(read);
  return FormatSize(read) + " reads, " + FormatSize(write) + " writes";
}

// Why the cleaner last cleaned or waited, or its error while its batches fail: "idle", "error:
// NoSpace: pwrite /hdd.img offset 0 length 4096: No space left on device".
std::string LastCleaning(const ControlJson& c) {
  const std::string error = JsonString(c, "last_error", "");
  return error.empty() ? JsonString(c, "last_reason") : "error: " + error;
}

// "target, 12 MiB dirty, oldest 3.0 s, flush ETA 1.2 s (last: idle)".
std::string DescribeCleaning(const ControlJson& c) {
  auto ms = [&](const char* key) -> int64_t {
    auto it = c.find(key);
    return it != c.end() && it->is_number_integer() ? it->get<int64_t>() : -1;
  };
  auto seconds = [](int64_t v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f s", double(v) / 1000.0);
    return std::string(buf);
  };
  const int64_t eta = ms("flush_eta_ms");
  return JsonString(c, "policy") + ", " + FormatSize(JsonU64(c, "dirty_bytes")) + " dirty, oldest " +
         seconds(std::max<int64_t>(0, ms("oldest_dirty_age_ms"))) + ", flush ETA " +
         (eta < 0 ? std::string("unknown") : seconds(eta)) + " (last: " + LastCleaning(c) + ")";
}

// "dirty target 20%, high 50%, max age 30 s, busy share 10%, idle after 1 s", or "" from a
// tiercached that does not report its cleaning knobs.
std::string DescribeCleaningKnobs(const ControlJson& c) {
  auto number = [&](const char* key) {
    auto it = c.find(key);
    return it != c.end() && it->is_number() ? it->get<double>() : -1.0;
  };
  if (number("dirty_target") < 0) return "";
  auto ms = [&](const char* key) {
    const std::chrono::duration<double, std::milli> t(number(key));
    return std::chrono::duration_cast<Nanos>(t);
  };
  CleaningOptions o;
  o.dirty_target = number("dirty_target");
  o.dirty_high = number("dirty_high");
  o.max_dirty_age = ms("max_dirty_age_ms");
  o.busy_share = number("busy_share");
  o.idle_after = ms("idle_after_ms");
  return o.describe();
}

// "failed (SSD errors: 3 read, 0 write, 0 persist; 4 KiB dirty data at risk)".
std::string DescribeHealth(const ControlJson& s) {
  const std::string state = JsonString(s, "health");
  const ControlJson errors = s.value("ssd_errors", ControlJson::object());
  if (state == "ok") return state;
  std::string text = state + " (SSD errors: " + std::to_string(JsonU64(errors, "read")) + " read, " +
                     std::to_string(JsonU64(errors, "write")) + " write, " +
                     std::to_string(JsonU64(errors, "persist")) + " persist; " +
                     FormatSize(JsonU64(s, "dirty_bytes_at_risk")) + " dirty data at risk)";
  if (state == "failed") text += "; running as pass-through until `tiercache reset-health`";
  return text;
}

// One "latency:" line per path; none for a daemon that sends no histograms.
void PrintLatency(const ControlJson& latency, std::ostream& out) {
  if (!latency.is_object()) return;
  const char* lead = "latency:    ";
  for (const char* path : kLatencyPaths) {
    std::string name = path;
    name.resize(6, ' ');
    out << lead << name << DescribeLatency(LatencyFromJson(latency, path)) << "\n";
    lead = "            ";
  }
}

// "cache io_uring (mean queue depth 14.2, 30 merged), core libaio (mean queue depth -)": the
// merged count (operations that joined a contiguous one) only when there are any.
std::string DescribeIo(const ControlJson& io) {
  auto device = [&io](const char* key) {
    const ControlJson d = io.value(key, ControlJson::object());
    const uint64_t rounds = JsonU64(d, "rounds");
    char depth[32] = "-";
    if (rounds != 0) {
      std::snprintf(depth, sizeof depth, "%.1f",
                    double(JsonU64(d, "in_flight_sum")) / double(rounds));
    }
    const uint64_t merged = JsonU64(d, "merged");
    return std::string(key) + " " + JsonString(d, "backend") + " (mean queue depth " + depth +
           (merged != 0 ? ", " + std::to_string(merged) + " merged" : "") + ")";
  };
  return device("cache") + ", " + device("core");
}

// "journal 12 of 162 blocks; 340 journal rounds, 5 steps, 1 checkpoint since open".
std::string DescribeMetadata(const ControlJson& m) {
  auto count = [&m](const char* key, const char* one, const char* many) {
    const uint64_t n = JsonU64(m, key);
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  return "journal " + std::to_string(JsonU64(m, "journal_blocks_used")) + " of " +
         count("journal_blocks", "block", "blocks") + "; " +
         count("journal_rounds", "journal round", "journal rounds") + ", " +
         count("steps", "step", "steps") + ", " +
         count("checkpoints", "checkpoint", "checkpoints") + " since open";
}

}  // namespace

std::string FormatLatency(Nanos latency) {
  const double ns = double(latency.count());
  char buf[32];
  if (ns < 1e6) {
    std::snprintf(buf, sizeof buf, "%.0f us", ns / 1e3);
  } else if (ns < 1e9) {
    std::snprintf(buf, sizeof buf, "%.2f ms", ns / 1e6);
  } else {
    std::snprintf(buf, sizeof buf, "%.2f s", ns / 1e9);
  }
  return buf;
}

std::string DescribeLatency(const LatencySnapshot& l) {
  if (l.count() == 0) return "no requests";
  return "p50 " + FormatLatency(l.quantile(0.5)) + ", p99 " + FormatLatency(l.quantile(0.99)) +
         ", p99.9 " + FormatLatency(l.quantile(0.999)) + " (" + std::to_string(l.count()) +
         (l.count() == 1 ? " request)" : " requests)");
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
  // Only from a tiercached that reports how its sockets move bytes.
  const std::string export_io = JsonString(s, "export_io", "");
  if (!exported.empty() && !export_io.empty()) exported += " (sockets on " + export_io + ")";
  auto clean_it = s.is_object() ? s.find("clean_shutdown_at_open") : s.end();
  bool clean = clean_it != s.end() && clean_it->is_boolean() && clean_it->get<bool>();
  // An older tiercached sends no policies: no line then.
  std::string policies;
  auto policies_it = s.is_object() ? s.find("policies") : s.end();
  if (policies_it != s.end() && policies_it->is_object()) {
    policies = "policies:   " + DescribePolicies(*policies_it) + "\n";
  }
  std::string cleaning;
  auto cleaning_it = s.is_object() ? s.find("cleaning") : s.end();
  if (cleaning_it != s.end() && cleaning_it->is_object()) {
    cleaning = "cleaning:   " + DescribeCleaning(*cleaning_it) + "\n";
    const std::string knobs = DescribeCleaningKnobs(*cleaning_it);
    if (!knobs.empty()) cleaning += "            " + knobs + "\n";
  }
  // An older tiercached sends no health: no line then.
  std::string health;
  if (s.is_object() && s.contains("health")) health = "health:     " + DescribeHealth(s) + "\n";
  // Only from a tiercached that reports its I/O backends.
  std::string io;
  auto io_it = s.is_object() ? s.find("io") : s.end();
  if (io_it != s.end() && io_it->is_object()) io = "io:         " + DescribeIo(*io_it) + "\n";
  // Only from a tiercached with the record journal's steps (format version 6).
  std::string metadata;
  auto md_it = s.is_object() ? s.find("metadata") : s.end();
  if (md_it != s.end() && md_it->is_object()) {
    metadata = "metadata:   " + DescribeMetadata(*md_it) + "\n";
  }
  out << "state:      " << JsonString(s, "state") << " (pid " << JsonU64(s, "pid") << ", up "
      << JsonU64(s, "uptime_seconds") << " s)\n"
      << "cache:      " << JsonString(s, "cache") << " (" << FormatSize(JsonU64(s, "cache_size"))
      << ")\n"
      << "core:       " << JsonString(s, "core") << " (" << FormatSize(JsonU64(s, "core_size"))
      << ")\n"
      << "export:     " << (exported.empty() ? "none" : exported) << "\n"
      << io
      << metadata
      << "mode:       " << JsonString(s, "mode") << "\n"
      << policies
      << "line size:  " << FormatSize(JsonU64(s, "line_size")) << "\n"
      << "lines:      " << lines << " total, " << used << " used (" << Percent(used, lines)
      << "), " << dirty << " dirty (" << Percent(dirty, lines) << ")\n"
      << cleaning
      << health
      << "uuid:       " << JsonString(s, "uuid") << "\n"
      << "format:     version " << JsonU64(s, "format_version") << ", previous shutdown "
      << (clean ? "clean" : "unclean (dirty and crash-safe clean lines kept)") << "\n";
}

std::string DescribePolicies(const ControlJson& p) {
  std::string text = "admission " + JsonString(p, "admission") + ", replacement " +
                     JsonString(p, "replacement") + ", sequential cutoff " +
                     DescribeCutoffs(p.is_object() ? p.value("sequential", ControlJson())
                                                   : ControlJson());
  if (p.is_object() && p.contains("index_bytes")) {
    text += ", index " + FormatSize(JsonU64(p, "index_bytes")) + " of RAM";
  }
  return text;
}

std::string DescribeCleaningSettings(const ControlJson& settings) {
  const std::string knobs = settings.is_object() ? DescribeCleaningKnobs(settings) : "";
  return JsonString(settings, "policy") + (knobs.empty() ? "" : "; " + knobs);
}

void PrintStats(const ControlJson& c, std::ostream& out) {
  auto v = [&c](const char* key) { return JsonU64(c, key); };
  uint64_t reads = v("read_hits") + v("read_partial_hits") + v("read_misses");
  uint64_t writes = v("write_hits") + v("write_misses");
  uint64_t read_bytes = v("read_hit_bytes") + v("read_miss_bytes");
  uint64_t write_bytes = v("write_hit_bytes") + v("write_miss_bytes");
  out << "reads:      " << N(v("read_hits")) << " hits, " << N(v("read_partial_hits"))
      << " partial hits, " << N(v("read_misses")) << " misses (hit ratio "
      << Percent(v("read_hits"), reads) << ")\n"
      << "writes:     " << N(v("write_hits")) << " hits, " << N(v("write_misses"))
      << " misses (hit ratio " << Percent(v("write_hits"), writes) << ")\n"
      << "byte hits:  " << FormatSize(v("read_hit_bytes")) << " of " << FormatSize(read_bytes)
      << " read (" << Percent(v("read_hit_bytes"), read_bytes) << "), "
      << FormatSize(v("write_hit_bytes")) << " of " << FormatSize(write_bytes) << " written ("
      << Percent(v("write_hit_bytes"), write_bytes) << ")\n"
      << "bypassed:   " << N(v("read_bypasses")) << " reads, " << N(v("write_bypasses"))
      << " writes\n"
      << "ssd:        " << FormatSize(v("bytes_read_ssd")) << " read, "
      << FormatSize(v("bytes_written_ssd")) << " written, "
      << FormatSize(v("fill_skipped_bytes")) << " of misses not cached (SSD behind)\n"
      << "core:       " << FormatSize(v("bytes_read_core")) << " read, "
      << FormatSize(v("bytes_written_core")) << " written\n"
      << "lines:      " << N(v("lines_total")) << " total, " << N(v("lines_used")) << " used, "
      << N(v("lines_dirty")) << " dirty (" << N(v("dirty_sectors")) << " dirty sectors), "
      << N(v("lines_untrusted")) << " not yet crash-safe\n"
      << "cleaning:   " << N(v("evictions")) << " evictions, " << N(v("cleaner_writes"))
      << " cleaner writes (" << N(v("cleaner_write_errors")) << " failed), "
      << N(v("cleaned_lines")) << " lines cleaned\n"
      << "requests:   " << N(v("flushes")) << " flushes, " << N(v("discards")) << " discards, "
      << N(v("write_zeroes")) << " write-zeroes\n"
      << "errors:     " << N(v("errors")) << "\n"
      << "ssd errors: " << N(v("ssd_read_errors")) << " read, " << N(v("ssd_write_errors"))
      << " write, " << N(v("ssd_persist_errors")) << " persist; " << N(v("ssd_failovers"))
      << " switches to pass-through\n";
  if (!c.is_object()) return;
  PrintLatency(c.value("latency", ControlJson()), out);
  PrintPolicyCounters(c.value("policy_counters", ControlJson()), out);
  for (const auto& item : c.items()) {
    if (kKnownCounters.count(item.key()) == 0) {
      out << item.key() << ": " << ToLine(item.value());  // ToLine ends with '\n'
    }
  }
}

}  // namespace tiercache
