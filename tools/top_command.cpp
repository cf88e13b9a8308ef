#include "tools/top_command.h"

#include <chrono>
#include <cstdio>
#include <thread>

#include "tools/control_session.h"
#include "tools/exit_codes.h"
#include "tools/reply_printer.h"
#include "cachelib/common/size_parser.h"

namespace tiercache {
namespace {

uint64_t Delta(const ControlJson& before, const ControlJson& after, const char* key) {
  const uint64_t a = JsonU64(after, key), b = JsonU64(before, key);
  return a >= b ? a - b : 0;
}

uint64_t DeltaSum(const ControlJson& before, const ControlJson& after,
                  std::initializer_list<const char*> keys) {
  uint64_t total = 0;
  for (const char* key : keys) total += Delta(before, after, key);
  return total;
}

std::string Fixed(double value, int decimals) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

}  // namespace

TopFrame ComputeTopFrame(const ControlJson& before, const ControlJson& after, double seconds) {
  TopFrame f;
  f.cache_name = JsonString(after, "cache_name");
  f.health = JsonString(after, "health");
  f.seconds = seconds;
  f.reads = DeltaSum(before, after, {"read_hits", "read_partial_hits", "read_misses", "read_bypasses"});
  f.writes = DeltaSum(before, after, {"write_hits", "write_misses", "write_bypasses"});
  f.read_hits = Delta(before, after, "read_hits");
  f.read_hit_bytes = Delta(before, after, "read_hit_bytes");
  f.read_bytes = f.read_hit_bytes + Delta(before, after, "read_miss_bytes");
  f.write_bytes = DeltaSum(before, after, {"write_hit_bytes", "write_miss_bytes"});
  f.dirty_bytes = JsonU64(after, "dirty_sectors") * 4096;
  const ControlJson none;
  const ControlJson& l0 = before.is_object() && before.contains("latency") ? before["latency"] : none;
  const ControlJson& l1 = after.is_object() && after.contains("latency") ? after["latency"] : none;
  for (size_t i = 0; i < kLatencyPaths.size(); ++i) {
    f.latency[i] = LatencyFromJson(l1, kLatencyPaths[i]).since(LatencyFromJson(l0, kLatencyPaths[i]));
  }
  return f;
}

std::string RenderTopFrame(const TopFrame& f) {
  auto rate = [&f](uint64_t n, double scale, int decimals) {
    return f.seconds > 0 ? Fixed(double(n) / scale / f.seconds, decimals) : std::string("-");
  };
  std::string text = "tiercache top: " + f.cache_name + " (health " + f.health + "), last " +
                     Fixed(f.seconds, 1) + " s\n";
  text += "IOPS:       read " + rate(f.reads, 1, 1) + ", write " + rate(f.writes, 1, 1) + "\n";
  text += "MB/s:       read " + rate(f.read_bytes, 1e6, 2) + ", write " +
          rate(f.write_bytes, 1e6, 2) + "\n";
  text += "hit ratio:  " + Percent(f.read_hits, f.reads) + " of reads, " +
          Percent(f.read_hit_bytes, f.read_bytes) + " of read bytes\n";
  text += "dirty:      " + FormatSize(f.dirty_bytes) + "\n";
  const char* lead = "latency:    ";
  for (size_t i = 0; i < kLatencyPaths.size(); ++i) {
    std::string name = kLatencyPaths[i];
    name.resize(6, ' ');
    text += lead + name + DescribeLatency(f.latency[i]) + "\n";
    lead = "            ";
  }
  return text;
}

int RunTop(const CliOptions& options, CommandIo& io) {
  Session session(options, io, "top");
  if (!session.connected()) return session.exit_code();
  using Clock = std::chrono::steady_clock;  // the CLI's own pacing, not engine time
  ControlJson before;
  if (!session.call(Request("stats"), &before)) return session.exit_code();
  Clock::time_point before_time = Clock::now();
  const auto interval = std::chrono::duration<double>(options.top_interval_s);
  for (uint32_t frame = 0; options.top_iterations == 0 || frame < options.top_iterations; ++frame) {
    std::this_thread::sleep_for(interval);
    ControlJson after;
    if (!session.call(Request("stats"), &after)) return session.exit_code();
    const Clock::time_point after_time = Clock::now();
    if (!io.json) {
      const double seconds = std::chrono::duration<double>(after_time - before_time).count();
      const std::string text = RenderTopFrame(
          ComputeTopFrame(before.value("stats", ControlJson()), after.value("stats", ControlJson()),
                          seconds));
      io.out << (io.progress_tty ? "\033[H\033[2J" : (frame > 0 ? "\n" : "")) << text << std::flush;
    }
    before = std::move(after);
    before_time = after_time;
  }
  return kExitOk;
}

}  // namespace tiercache
