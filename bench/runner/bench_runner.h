// BenchRunner: runs every selected workload on every selected setup for N passes (pass 1 cold:
// each workload gets freshly built setups), in virtual time by default, and collects BenchResults.
// In real time the synthetic tests run through fio against real processes (FioSetupRunner) and
// the traces replay in-process on the models in real time.
// Between passes the loop idles (virtual or real time) so that caches can clean and disks destage,
// as between the reviewers' runs. Not thread-safe; one run at a time.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cachelib/device/models/model_profiles.h"
#include "bench/runner/bench_setup.h"
#include "bench/runner/fio_setup_runner.h"
#include "bench/runner/bench_results.h"
#include "bench/runner/workload_catalog.h"
#include "bench/workloads/replayer.h"

namespace tiercache::bench {

struct BenchConfig {
  std::vector<std::string> setups = {"hdd", "ssd", "wt", "wb"};
  uint32_t passes = 5;                 // >= 1
  bool realtime = false;               // false: virtual time (SimEventLoop)
  uint64_t seed = 1;
  std::string hdd_profile = "hdd7200";
  std::string ssd_profile = "sata-ssd";
  uint64_t cache_bytes = 2ull << 30;   // SSD size of the wt/wb caches
  uint32_t line_size = 4096;           // cache line size
  Nanos idle_between_passes = std::chrono::seconds(5);
  // Real time: synthetic tests run through fio against real processes (fio_setup_runner.h).
  double fio_runtime_seconds = 5;  // fio runtime per pass; > 0
  FioRunConfig fio = FioRunConfig::Defaults();  // work_dir is made per run
  // Engine options of the wt/wb setups, in virtual and in real time; shown in the reports.
  BenchPolicies policies;
};

class BenchRunner {
 public:
  // Called after each measured pass.
  using Progress = std::function<void(const std::string& workload, const std::string& setup,
                                      uint32_t pass)>;

  BenchRunner(BenchConfig config, ModelProfiles profiles)
      : config_(std::move(config)), profiles_(std::move(profiles)) {}

  // InvalidArgument for unknown setups or profiles; a setup that fails to build or run is
  // reported in its SetupResult::error and the run goes on.
  Result<BenchResults> run(const std::vector<WorkloadSpec>& workloads, const Progress& progress);

 private:
  SetupResult run_setup(const WorkloadSpec& workload, const std::string& setup,
                        const Progress& progress);
  SetupResult run_fio_setup(const WorkloadSpec& workload, const std::string& setup,
                            const Progress& progress);

  BenchConfig config_;
  ModelProfiles profiles_;
  SetupEnv env_;
};

// Runs one trace to completion on `driver` and returns its statistics. If `completions` is set it
// receives each record's completion time relative to the start (Replayer::completion_times).
ReplayStats ReplayOnce(LoopDriver& driver, Device& device, const Trace& trace, uint64_t seed,
                       std::vector<Nanos>* completions = nullptr);

}  // namespace tiercache::bench
