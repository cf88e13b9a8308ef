// SsdHealth: counts the cache SSD's I/O errors and decides when the cache leaves the data path
// (Open CAS fallback_pt_error_threshold): `threshold` errors within `window` switch it to failed,
// after which every request runs as pass-through until reset(). Time comes in as arguments (the
// engine's background-loop clock), so tests run in virtual time. Owned by the Engine. Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>

#include "cachelib/common/clock.h"
#include "cachelib/common/log_throttle.h"

namespace tiercache {

enum class SsdErrorKind { kRead, kWrite, kPersist };
enum class SsdHealthState { kOk, kDegraded, kFailed };

const char* SsdHealthName(SsdHealthState state);

class SsdHealth {
 public:
  // threshold 0: errors are counted but never take the cache out of the path.
  SsdHealth(uint32_t threshold, Nanos window) : threshold_(threshold), window_(window) {}

  // Counts one error at `now`; true if it switched the cache to failed.
  bool record(SsdErrorKind kind, Nanos now);
  // Back to ok: the failed state, the error window and the since-reset count are cleared (the
  // cumulative counters are kept).
  void reset();

  bool failed() const { return failed_.load(std::memory_order_acquire); }
  // ok: no error since the start or the last reset; degraded: errors but not failed.
  SsdHealthState state() const;
  uint64_t read_errors() const { return read_errors_.load(std::memory_order_relaxed); }
  uint64_t write_errors() const { return write_errors_.load(std::memory_order_relaxed); }
  uint64_t persist_errors() const { return persist_errors_.load(std::memory_order_relaxed); }
  // Times the cache switched itself out of the path.
  uint64_t failovers() const { return failovers_.load(std::memory_order_relaxed); }
  // Paces the error log (a dying SSD fails thousands of I/Os a second): true at most once per
  // second of `now`, the first call included, with *unlogged set to the calls that returned false
  // since the previous true.
  bool error_line_due(Nanos now, uint64_t* unlogged) { return error_lines_.due(now, unlogged); }

 private:
  const uint32_t threshold_;
  const Nanos window_;
  std::atomic<bool> failed_{false};
  std::atomic<uint64_t> read_errors_{0}, write_errors_{0}, persist_errors_{0}, failovers_{0};
  LogThrottle error_lines_;
  mutable std::mutex mu_;
  std::deque<Nanos> recent_;        // GUARDED_BY(mu_): error times within the window, oldest first
  uint64_t since_reset_ = 0;        // GUARDED_BY(mu_)
};

}  // namespace tiercache
