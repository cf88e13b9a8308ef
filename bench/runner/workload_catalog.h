// WorkloadCatalog: turns --workloads selections into WorkloadSpecs: the synthetic traces (boot,
// applaunch, gameload), the recorded traces (realapp, realapp-install), CrystalDiskMark tests
// (cdm:...), AS SSD 4K-64Thrd (asssd:...), the larger-than-cache variant (cdm-large:...), HD Tune's
// linear read (hdtune) and imported trace files. Each spec makes the trace of every pass and, for
// CrystalDiskMark and AS SSD tests, the preparation that creates the test file.
// Immutable after construction; thread-safe.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bench/workloads/hdtune.h"
#include "bench/workloads/synthetic_tests.h"
#include "bench/workloads/trace.h"

namespace tiercache::bench {

struct WorkloadSpec {
  std::string name;
  std::string metric;       // "seconds" for traces, "mb_per_s" for synthetic tests
  std::string description;
  std::function<Trace(uint32_t pass)> make_pass;  // pass 1..N
  std::optional<Trace> preparation;               // run once before pass 1, not measured
  std::optional<SyntheticTest> test;  // synthetic tests: what --realtime runs through fio
  uint64_t area_bytes = 0;            // synthetic tests: the test area's size
  std::optional<HdTuneParams> hdtune;  // hdtune: how to cut each pass into positions
};

struct CatalogOptions {
  uint64_t seed = 1;
  double trace_scale = 1.0;             // boot/applaunch/gameload size factor
  uint64_t area_offset = 64ull << 30;   // where synthetic tests put their test file
  uint64_t area_bytes = 1ull << 30;     // CrystalDiskMark test size
  uint64_t large_area_bytes = 4ull << 30;  // cdm-large: larger than the cache
  uint64_t random_ops = 8192;           // per pass of a random synthetic test
  uint32_t hdtune_positions = 64;       // hdtune: sample points per pass (reads the area_bytes)
};

class WorkloadCatalog {
 public:
  explicit WorkloadCatalog(CatalogOptions options) : options_(std::move(options)) {}

  // Adds an imported trace as a workload of that name (replayed identically every pass).
  // InvalidArgument for an empty name, one already added, and the names and groups of built-in
  // workloads (an import would shadow them, or could never be selected: "cdm=...").
  Status add_trace(Trace trace);

  // Expands a comma-separated selection: names (hdtune, boot, ...), groups ("traces" =
  // boot,applaunch,gameload,realapp; "cdm"; "asssd"; "cdm-large"; "all"), parseable synthetic names (cdm:RND4K-Q32T16-read) and
  // imported trace names. Duplicates are dropped; order is kept. InvalidArgument for unknown names.
  Result<std::vector<WorkloadSpec>> select(const std::string& selection) const;

  static std::string DefaultSelection() {
    return "traces,cdm,asssd,hdtune,cdm-large:SEQ1M-Q1T1-read,cdm-large:RND4K-Q1T1-read";
  }

 private:
  Result<WorkloadSpec> make(const std::string& name) const;
  WorkloadSpec synthetic(const SyntheticTest& test) const;
  WorkloadSpec hdtune() const;
  std::vector<std::string> expand(const std::string& item) const;

  CatalogOptions options_;
  std::map<std::string, Trace> traces_;
};

}  // namespace tiercache::bench
