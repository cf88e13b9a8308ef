#include "cachelib/common/clock.h"

#include <ctime>

namespace tiercache {

Nanos SteadyClock::now() const {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return Nanos(int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec);
}

SteadyClock& SteadyClock::instance() {
  static SteadyClock clock;
  return clock;
}

Nanos ManualClock::now() const { return Nanos(now_.load(std::memory_order_acquire)); }
void ManualClock::set(Nanos t) { now_.store(t.count(), std::memory_order_release); }
void ManualClock::advance(Nanos d) { now_.fetch_add(d.count(), std::memory_order_acq_rel); }

}  // namespace tiercache
