// BenchSetup: one storage configuration the benchmark measures, built fresh for every workload:
//   hdd  the HDD model over a sparse MemoryDevice
//   ssd  the SSD model over a sparse MemoryDevice of the same size
//   wt   a tiercache Cache in write-through mode (Smart Response "Enhanced"): SSD model + HDD model
//   wb   the same in write-back mode (Smart Response "Maximized")
// Owns its devices. Used from the runner thread and its loop; not thread-safe.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cachelib/device/models/model_profiles.h"
#include "bench/runner/bench_policies.h"
#include "bench/runner/loop_driver.h"
#include "cachelib/engine/cache.h"

namespace tiercache::bench {

struct SetupEnv {
  ModelProfile hdd;                    // the HDD (core) model
  ModelProfile ssd;                    // the SSD model (ssd setup and cache device)
  uint64_t disk_bytes = 0;             // HDD size; the ssd setup gets the same address space
  uint64_t cache_bytes = 2ull << 30;   // SSD size of the wt/wb caches, metadata included
  uint32_t line_size = 4096;           // cache line size for the format
  uint64_t seed = 1;
  BenchPolicies policies;               // the wt/wb caches' engine options
};

class BenchSetup {
 public:
  struct Snapshot {
    uint64_t ssd_bytes_written = 0;
    uint64_t hdd_bytes_read = 0, hdd_bytes_written = 0;
    std::optional<CacheCounters> cache;
  };

  virtual ~BenchSetup() = default;
  // What the workload runs against.
  virtual Device& device() = 0;
  virtual Snapshot snapshot() const = 0;
  // Before destruction: stops background work, persists (Cache::close) and drains the models'
  // write caches so that nothing is left scheduled. Runs on the loop.
  virtual void close(IoCallback done) = 0;

  // The names MakeSetup accepts, in report order.
  static const std::vector<std::string>& Names();
};

// Builds `name` ("hdd", "ssd", "wt", "wb"); the caches are formatted and opened on the driver's
// loop. InvalidArgument for other names.
Result<std::unique_ptr<BenchSetup>> MakeSetup(std::string_view name, const SetupEnv& env,
                                              LoopDriver& driver);

}  // namespace tiercache::bench
