#include "bench/runner/fio_setup_runner.h"

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace tiercache::bench {
namespace {

std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs `command` with /bin/sh, stderr to `err_file`; its stdout, or IoError with the stderr.
Result<std::string> RunShell(const std::string& command, const std::string& err_file) {
  const std::string full = command + " 2>" + Quote(err_file);
  std::FILE* pipe = popen(full.c_str(), "r");
  if (pipe == nullptr) return Status::IoError("cannot run: " + command);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  const int rc = pclose(pipe);
  if (rc != 0) {
    std::string err = ReadFile(err_file);
    if (err.size() > 600) err = "..." + err.substr(err.size() - 600);
    return Status::IoError(command.substr(0, command.find(' ')) + " exited with status " +
                           std::to_string(WIFEXITED(rc) ? WEXITSTATUS(rc) : rc) + ": " + err);
  }
  return out;
}

}  // namespace

struct CoreCounters {
  uint64_t read_hits = 0, reads = 0, write_hits = 0, writes = 0;
  uint64_t ssd_written = 0, core_read = 0, core_written = 0;
};

namespace {

Result<CoreCounters> ParseStats(const std::string& text) {
  auto doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.contains("stats")) {
    return Status::InvalidArgument("not tiercache stats JSON: " + text.substr(0, 200));
  }
  const auto& s = doc["stats"];
  auto u = [&s](const char* k) { return s.value(k, uint64_t{0}); };
  CoreCounters c;
  c.read_hits = u("read_hits");
  c.reads = c.read_hits + u("read_partial_hits") + u("read_misses") + u("read_bypasses");
  c.write_hits = u("write_hits");
  c.writes = c.write_hits + u("write_misses") + u("write_bypasses");
  c.ssd_written = u("bytes_written_ssd");
  c.core_read = u("bytes_read_core");
  c.core_written = u("bytes_written_core");
  return c;
}

std::optional<double> Ratio(uint64_t part, uint64_t whole) {
  if (whole == 0) return std::nullopt;
  return static_cast<double>(part) / static_cast<double>(whole);
}

// Device traffic and hit ratios of one pass from the daemon's counters. In the hdd, ssd and
// nbdkit-cache setups tiercached is in pass-through mode: its core is the modelled disk.
void AddCounters(const std::string& setup, const CoreCounters& a, const CoreCounters& b,
                 PassResult* p) {
  const uint64_t core_read = b.core_read - a.core_read;
  const uint64_t core_written = b.core_written - a.core_written;
  if (setup == "ssd") {
    p->ssd_bytes_written = core_written;
    return;
  }
  p->hdd_bytes_read = core_read;
  p->hdd_bytes_written = core_written;
  if (setup != "wt" && setup != "wb") return;
  p->ssd_bytes_written = b.ssd_written - a.ssd_written;
  p->read_hit_ratio = Ratio(b.read_hits - a.read_hits, b.reads - a.reads);
  p->write_hit_ratio = Ratio(b.write_hits - a.write_hits, b.writes - a.writes);
  p->hit_ratio = p->read_hit_ratio ? p->read_hit_ratio : p->write_hit_ratio;
}

}  // namespace

FioRunConfig FioRunConfig::Defaults() {
  FioRunConfig c;
  c.fio_dir = std::string(TIERCACHE_SOURCE_DIR) + "/bench/fio";
  const char* env = std::getenv("TIERCACHE_BUILD_DIR");
  c.build_dir = env != nullptr && *env != '\0' ? env : TIERCACHE_BINARY_DIR;
  return c;
}

Result<PassResult> ParseFioJson(const std::string& text, bool write) {
  const size_t start = text.find("\n{");
  auto doc = nlohmann::json::parse(text.starts_with("{") ? text : text.substr(start + 1), nullptr,
                                   false);
  if ((start == std::string::npos && !text.starts_with("{")) || doc.is_discarded() ||
      !doc.contains("jobs") || doc["jobs"].empty()) {
    return Status::InvalidArgument("not fio JSON output: " + text.substr(0, 200));
  }
  const auto& job = doc["jobs"][0];
  const auto& side = job[write ? "write" : "read"];
  PassResult p;
  p.seconds = side.value("runtime", 0.0) / 1000.0;
  p.mb_per_s = side.value("bw_bytes", 0.0) / 1e6;
  p.iops = side.value("iops", 0.0);
  p.mean_latency_us = side.contains("lat_ns") ? side["lat_ns"].value("mean", 0.0) / 1000.0 : 0;
  p.ops = side.value("total_ios", uint64_t{0});
  (write ? p.bytes_written : p.bytes_read) = side.value("io_bytes", uint64_t{0});
  p.errors = job.value("error", uint64_t{0});
  return p;
}

Result<CoreCounters> FioSetupRunner::stats(const std::string& dir) const {
  auto text = RunShell(stack("stats " + Quote(dir)), dir + ".err");
  if (!text.ok()) return text.status();
  return ParseStats(text.value());
}

std::string FioSetupRunner::stack(const std::string& args) const {
  std::string cache_args;  // each word quoted for the shell: stack.sh reads them with eval
  for (const std::string& a : config_.cache_daemon_args) cache_args += " " + Quote(a);
  return "TIERCACHE_BUILD_DIR=" + Quote(config_.build_dir) + " TC_CACHE_ARGS=" + Quote(cache_args) +
         " TC_DISK_SIZE=" + std::to_string(4 * config_.cache_bytes) +
         " TC_CACHE_SIZE=" + std::to_string(config_.cache_bytes) +
         " TC_HDD_MODEL=" + Quote(config_.hdd_profile) +
         " TC_SSD_MODEL=" + Quote(config_.ssd_profile) + " bash " +
         Quote(config_.fio_dir + "/stack.sh") + " " + args;
}

Result<PassResult> FioSetupRunner::run_pass(const WorkloadSpec& workload, const std::string& setup,
                                            const std::string& uri) {
  const SyntheticTest& t = *workload.test;
  const std::string dir = config_.work_dir + "/" + setup;
  const Result<CoreCounters> before = stats(dir);
  const std::string rw = std::string(t.sequential ? "" : "rand") + (t.write ? "write" : "read");
  const std::string cmd =
      "TC_URI=" + Quote(uri) + " TC_RW=" + rw + " TC_BS=" + std::to_string(t.block) +
      " TC_QD=" + std::to_string(t.queue_depth) + " TC_THREADS=" + std::to_string(t.threads) +
      " TC_SIZE=" + std::to_string(workload.area_bytes) + " TC_OFFSET=0 TC_RUNTIME=" +
      std::to_string(config_.runtime_seconds) + " fio --output-format=json " +
      Quote(config_.fio_dir + "/cdm-test.fio");
  auto out = RunShell(cmd, dir + ".fio.err");
  if (!out.ok()) return out.status();
  auto pass = ParseFioJson(out.value(), t.write);
  if (!pass.ok()) return pass.status();
  const Result<CoreCounters> after = stats(dir);
  if (before.ok() && after.ok()) AddCounters(setup, before.value(), after.value(), &pass.value());
  return pass;
}

SetupResult FioSetupRunner::run(const WorkloadSpec& workload, const std::string& setup,
                                const Progress& progress) {
  SetupResult out;
  out.name = setup;
  const std::string dir = config_.work_dir + "/" + setup;
  auto uri = RunShell(stack("start " + Quote(setup) + " " + Quote(dir)), dir + ".err");
  if (!uri.ok()) {
    (void)RunShell(stack("stop " + Quote(dir)), dir + ".stop.err");
    const bool missing = uri.status().message().find("NotSupported") != std::string::npos;
    out.error = missing ? Status::NotSupported(uri.status().message()).ToString()
                        : uri.status().ToString();
    return out;
  }
  std::string u = uri.value();
  while (!u.empty() && (u.back() == '\n' || u.back() == ' ')) u.pop_back();
  auto prep = RunShell("TC_URI=" + Quote(u) + " TC_SIZE=" + std::to_string(workload.area_bytes) +
                           " TC_OFFSET=0 fio --output-format=json " +
                           Quote(config_.fio_dir + "/prepare.fio"),
                       dir + ".fio.err");
  if (!prep.ok()) out.error = "prepare: " + prep.status().ToString();
  for (uint32_t pass = 1; pass <= config_.passes && out.error.empty(); ++pass) {
    auto p = run_pass(workload, setup, u);
    if (!p.ok()) {
      out.error = p.status().ToString();
      break;
    }
    out.passes.push_back(p.value());
    if (progress) progress(pass);
  }
  auto stopped = RunShell(stack("stop " + Quote(dir)), dir + ".stop.err");
  if (!stopped.ok() && out.error.empty()) out.error = "stop: " + stopped.status().ToString();
  return out;
}

}  // namespace tiercache::bench
