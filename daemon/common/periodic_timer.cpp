#include "daemon/common/periodic_timer.h"

namespace tiercache {

void PeriodicTimer::start() { arm(); }

void PeriodicTimer::arm() {
  armed_ = true;
  timer_ = loop_.schedule_after(interval_, [this] {
    armed_ = false;
    task_();
    arm();
  });
}

void PeriodicTimer::stop() {
  if (armed_) loop_.cancel(timer_);
  armed_ = false;
}

}  // namespace tiercache
