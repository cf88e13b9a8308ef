// FioSetupRunner: `tiercache-bench --realtime` for the synthetic tests (CrystalDiskMark, AS SSD):
// each setup runs as real processes started by bench/fio/stack.sh (tiercached with
// --core-model/--cache-model, nbdkit's cache filter for nbdkit-cache), and each pass is one fio
// run of bench/fio/cdm-test.fio through fio's nbd engine, parsed from --output-format=json.
// Not thread-safe; one run at a time.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "bench/runner/bench_results.h"
#include "bench/runner/workload_catalog.h"

namespace tiercache::bench {

struct CoreCounters;  // tiercached's counters (fio_setup_runner.cpp)

struct FioRunConfig {
  std::string fio_dir;     // the job files and stack.sh (bench/fio)
  std::string build_dir;   // where tiercached and tiercache are built
  std::string work_dir;    // scratch space for images and sockets; must exist
  std::string hdd_profile = "hdd7200", ssd_profile = "sata-ssd";
  uint64_t cache_bytes = 512ull << 20;
  uint32_t passes = 5;
  double runtime_seconds = 5;  // per pass (fio runtime=); > 0
  // tiercached flags of the wt/wb setups (BenchPolicies::daemon_args): stack.sh's TC_CACHE_ARGS.
  std::vector<std::string> cache_daemon_args;
  // Defaults for fio_dir and build_dir: the source and build trees this binary was built from,
  // or $TIERCACHE_BUILD_DIR.
  static FioRunConfig Defaults();
};

class FioSetupRunner {
 public:
  using Progress = std::function<void(uint32_t pass)>;
  explicit FioSetupRunner(FioRunConfig config) : config_(std::move(config)) {}

  // REQUIRES: workload.test is set. Starts `setup` fresh, writes the test area once (not
  // measured), runs the passes and stops the setup. Failures land in SetupResult::error.
  SetupResult run(const WorkloadSpec& workload, const std::string& setup,
                  const Progress& progress);

 private:
  Result<PassResult> run_pass(const WorkloadSpec& workload, const std::string& setup,
                              const std::string& uri);
  std::string stack(const std::string& args) const;  // the stack.sh command line
  Result<CoreCounters> stats(const std::string& dir) const;  // `stack.sh stats DIR`

  FioRunConfig config_;
};

// One pass's figures from fio's JSON output (text may start with fio's notices): the job's read
// or write side. InvalidArgument if it is not fio JSON.
Result<PassResult> ParseFioJson(const std::string& text, bool write);

}  // namespace tiercache::bench
