#include "bench/runner/bench_runner.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace tiercache::bench {
namespace {

std::optional<double> Ratio(uint64_t part, uint64_t whole) {
  if (whole == 0) return std::nullopt;
  return static_cast<double>(part) / static_cast<double>(whole);
}

void AddCacheRatios(const CacheCounters& a, const CacheCounters& b, PassResult* out) {
  const uint64_t read_hits = b.read_hits - a.read_hits;
  const uint64_t reads = read_hits + (b.read_partial_hits - a.read_partial_hits) +
                         (b.read_misses - a.read_misses) + (b.read_bypasses - a.read_bypasses);
  const uint64_t write_hits = b.write_hits - a.write_hits;
  const uint64_t writes =
      write_hits + (b.write_misses - a.write_misses) + (b.write_bypasses - a.write_bypasses);
  out->read_hit_ratio = Ratio(read_hits, reads);
  out->write_hit_ratio = Ratio(write_hits, writes);
  out->hit_ratio = out->read_hit_ratio ? out->read_hit_ratio : out->write_hit_ratio;
}

PassResult Measure(const ReplayStats& s, const BenchSetup::Snapshot& before,
                   const BenchSetup::Snapshot& after) {
  PassResult p;
  p.seconds = s.seconds();
  p.mb_per_s = s.mb_per_s();
  p.iops = s.iops();
  p.mean_latency_us = s.mean_latency_us();
  p.ops = s.ops;
  p.bytes_read = s.bytes_read;
  p.bytes_written = s.bytes_written;
  p.errors = s.errors;
  p.ssd_bytes_written = after.ssd_bytes_written - before.ssd_bytes_written;
  p.hdd_bytes_read = after.hdd_bytes_read - before.hdd_bytes_read;
  p.hdd_bytes_written = after.hdd_bytes_written - before.hdd_bytes_written;
  if (before.cache && after.cache) AddCacheRatios(*before.cache, *after.cache, &p);
  return p;
}

std::vector<PositionResult> Positions(const HdTuneParams& params,
                                      const std::vector<Nanos>& completions) {
  std::vector<PositionResult> out;
  for (const PositionSample& s : SampleHdTunePositions(params, completions)) {
    out.push_back({s.offset, s.mb_per_s});
  }
  return out;
}

// What the reports say about the run, before any workload.
BenchResults RunDetails(const BenchConfig& config) {
  BenchResults r;
  r.mode = config.realtime ? "realtime" : "virtual";
  r.passes = config.passes;
  r.seed = config.seed;
  r.hdd_profile = config.hdd_profile;
  r.ssd_profile = config.ssd_profile;
  r.cache_bytes = config.cache_bytes;
  r.policies = config.policies;
  return r;
}

}  // namespace

ReplayStats ReplayOnce(LoopDriver& driver, Device& device, const Trace& trace, uint64_t seed,
                       std::vector<Nanos>* completions) {
  Replayer replayer(device, trace, seed);
  ReplayStats stalled = replayer.stats();
  stalled.errors += 1;
  stalled.first_error = Status::IoError("replay stalled: a request never completed");
  ReplayStats stats = Await<ReplayStats>(
      driver,
      [&](std::function<void(ReplayStats)> done) {
        replayer.start([done](const ReplayStats& s) { done(s); });
      },
      stalled);
  if (completions) *completions = replayer.completion_times();
  return stats;
}

Result<BenchResults> BenchRunner::run(const std::vector<WorkloadSpec>& workloads,
                                      const Progress& progress) {
  if (config_.passes < 1) return Status::InvalidArgument("--passes must be >= 1");
  if (config_.fio_runtime_seconds <= 0) return Status::InvalidArgument("fio runtime must be > 0");
  for (const auto& s : config_.setups) {
    const auto& names = BenchSetup::Names();
    if (std::find(names.begin(), names.end(), s) == names.end() && s != "nbdkit-cache") {
      return Status::InvalidArgument("unknown setup '" + s + "' (hdd, ssd, wt, wb, nbdkit-cache)");
    }
  }
  auto hdd = profiles_.find(config_.hdd_profile);
  if (!hdd.ok()) return hdd.status();
  auto ssd = profiles_.find(config_.ssd_profile);
  if (!ssd.ok()) return ssd.status();
  if (hdd->kind != ModelProfile::Kind::kHdd || ssd->kind != ModelProfile::Kind::kSsd) {
    return Status::InvalidArgument("--hdd-model needs an hdd profile, --ssd-model an ssd profile");
  }
  env_ = SetupEnv{hdd.value(), ssd.value(), hdd->hdd.capacity_bytes, config_.cache_bytes,
                  config_.line_size, config_.seed, config_.policies};
  BenchResults results = RunDetails(config_);
  char work[] = "/tmp/tiercache-bench.XXXXXX";
  if (config_.realtime) {
    if (mkdtemp(work) == nullptr) return Status::IoError("cannot create a directory in /tmp");
    config_.fio.work_dir = work;
    config_.fio.cache_daemon_args = config_.policies.daemon_args();
  }
  for (const WorkloadSpec& w : workloads) {
    WorkloadResult wr{w.name, w.metric, w.description, {}};
    for (const auto& s : config_.setups) {
      const bool fio = config_.realtime && w.test.has_value();
      wr.setups.push_back(fio ? run_fio_setup(w, s, progress) : run_setup(w, s, progress));
    }
    results.workloads.push_back(std::move(wr));
  }
  if (config_.realtime) {
    std::error_code ignored;
    std::filesystem::remove_all(work, ignored);
  }
  return results;
}

SetupResult BenchRunner::run_fio_setup(const WorkloadSpec& workload, const std::string& name,
                                       const Progress& progress) {
  FioRunConfig c = config_.fio;
  c.hdd_profile = config_.hdd_profile;
  c.ssd_profile = config_.ssd_profile;
  c.cache_bytes = config_.cache_bytes;
  c.passes = config_.passes;
  c.runtime_seconds = config_.fio_runtime_seconds;
  FioSetupRunner runner(c);
  return runner.run(workload, name, [&](uint32_t pass) {
    if (progress) progress(workload.name, name, pass);
  });
}

SetupResult BenchRunner::run_setup(const WorkloadSpec& workload, const std::string& name,
                                   const Progress& progress) {
  SetupResult out;
  out.name = name;
  auto driver = LoopDriver::Create(config_.realtime);
  if (!driver.ok()) {
    out.error = driver.status().ToString();
    return out;
  }
  LoopDriver& d = *driver.value();
  auto setup = MakeSetup(name, env_, d);
  if (!setup.ok()) {
    out.error = setup.status().ToString();
    return out;
  }
  BenchSetup& s = *setup.value();
  if (workload.preparation) {
    (void)ReplayOnce(d, s.device(), *workload.preparation, config_.seed);
    d.idle(config_.idle_between_passes);
  }
  for (uint32_t pass = 1; pass <= config_.passes; ++pass) {
    const Trace trace = workload.make_pass(pass);
    const BenchSetup::Snapshot before = s.snapshot();
    std::vector<Nanos> completions;
    const ReplayStats stats = ReplayOnce(d, s.device(), trace, config_.seed + pass,
                                         workload.hdtune ? &completions : nullptr);
    out.passes.push_back(Measure(stats, before, s.snapshot()));
    if (workload.hdtune) out.passes.back().positions = Positions(*workload.hdtune, completions);
    if (progress) progress(workload.name, name, pass);
    if (pass < config_.passes) d.idle(config_.idle_between_passes);
  }
  Status closed = Await<Status>(
      d, [&](std::function<void(Status)> done) { s.close(done); },
      Status::IoError("close never completed"));
  if (!closed.ok()) out.error = "close: " + closed.ToString();
  return out;
}

}  // namespace tiercache::bench
