// EngineCounters: the engine's live statistics as relaxed atomics; snapshot() gives CacheCounters.
// Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>

#include "cachelib/common/latency_histogram.h"
#include "cachelib/engine/cache.h"

namespace tiercache {

struct EngineCounters {
  using C = std::atomic<uint64_t>;
  C read_hits{0}, read_partial_hits{0}, read_misses{0};
  C write_hits{0}, write_misses{0};
  C read_bypasses{0}, write_bypasses{0};
  C read_hit_bytes{0}, read_miss_bytes{0}, write_hit_bytes{0}, write_miss_bytes{0};
  C bytes_read_ssd{0}, bytes_written_ssd{0}, bytes_read_core{0}, bytes_written_core{0};
  C evictions{0}, cleaner_writes{0}, cleaner_write_errors{0}, cleaned_lines{0}, errors{0};
  C fill_skipped_bytes{0};
  C flushes{0}, discards{0}, write_zeroes{0};
  C lines_dirty{0}, dirty_sectors{0};
  // Request latency by path (CacheLatency), recorded where a request completes.
  LatencyHistogram latency_hit, latency_miss, latency_write, latency_flush;

  static void add(C& c, uint64_t n = 1) { c.fetch_add(n, std::memory_order_relaxed); }
  static void sub(C& c, uint64_t n = 1) { c.fetch_sub(n, std::memory_order_relaxed); }
};

}  // namespace tiercache
