// LogThrottle: paces a log line that a fault can repeat thousands of times a second (a dying SSD,
// a client resetting connections in a loop): at most `per_second` lines in a second, each saying
// how many were left out before it. Thread-safe.
#pragma once

#include <cstdint>
#include <mutex>

#include "cachelib/common/clock.h"

namespace tiercache {

class LogThrottle {
 public:
  explicit LogThrottle(uint32_t per_second = 1) : per_second_(per_second) {}

  // True for the first `per_second` calls of each second (counted from the first call of that
  // second), with *unlogged set to the calls that returned false since the previous true.
  bool due(Nanos now, uint64_t* unlogged) {
    std::lock_guard lock(mu_);
    if (now >= window_end_) {
      window_end_ = now + std::chrono::seconds(1);
      in_window_ = 0;
    }
    if (in_window_ == per_second_) {
      ++unlogged_;
      return false;
    }
    ++in_window_;
    *unlogged = unlogged_;
    unlogged_ = 0;
    return true;
  }

 private:
  const uint32_t per_second_;
  std::mutex mu_;
  Nanos window_end_{INT64_MIN};  // GUARDED_BY(mu_)
  uint32_t in_window_ = 0;       // GUARDED_BY(mu_)
  uint64_t unlogged_ = 0;        // GUARDED_BY(mu_)
};

}  // namespace tiercache
