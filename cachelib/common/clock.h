// Clock: where engine code gets the time. Injected everywhere so that the benchmark can run the
// engine in virtual time and tests can step it; nothing in cachelib/ reads the wall clock directly.
#pragma once

#include <chrono>
#include <atomic>
#include <cstdint>

namespace tiercache {

// Nanoseconds since an arbitrary, clock-specific epoch.
using Nanos = std::chrono::nanoseconds;

class Clock {
 public:
  virtual ~Clock() = default;
  // Thread-safe.
  virtual Nanos now() const = 0;
};

// The monotonic system clock (CLOCK_MONOTONIC).
class SteadyClock final : public Clock {
 public:
  Nanos now() const override;
  static SteadyClock& instance();
};

// A clock that only moves when told to. Thread-safe.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(Nanos start = Nanos(0)) : now_(start.count()) {}
  Nanos now() const override;
  void set(Nanos t);
  void advance(Nanos d);

 private:
  std::atomic<int64_t> now_;
};

}  // namespace tiercache
