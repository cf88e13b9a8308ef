// SimResult: what one replay of a trace through one SimCase measured — the engine's own counters
// and policy report, plus the trace's request and block-access counts — and SimTraceResult, every
// case of one trace. Plain values; thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/sim/sim_case.h"
#include "cachelib/engine/cache.h"

namespace tiercache::bench {

struct SimResult {
  SimCase sim_case;
  uint64_t requests = 0;        // trace records replayed
  uint64_t block_accesses = 0;  // 4 KiB blocks touched by reads and writes
  CacheCounters counters;       // Cache::counters() after the replay
  PolicyReport policies;        // Cache::policy_report() after the replay

  // Blocks not found in the cache (bypassed and not-admitted ones included).
  uint64_t block_misses() const {
    return (counters.read_miss_bytes + counters.write_miss_bytes) / 4096;
  }
  double miss_ratio() const {
    return block_accesses ? double(block_misses()) / double(block_accesses) : 0.0;
  }
  uint64_t ssd_bytes_written() const { return counters.bytes_written_ssd; }
  uint64_t hdd_bytes_read() const { return counters.bytes_read_core; }
};

// A trace as named on the command line: NAME=FORMAT:FILE.
struct SimTraceSpec {
  std::string name;    // default: the file name without its extension
  std::string format;  // "blkparse", "fio" or "msr"
  std::string file;    // path as given
};

struct SimTraceResult {
  SimTraceSpec trace;
  std::vector<SimResult> results;  // by cache size, then admission, then replacement
};

}  // namespace tiercache::bench
