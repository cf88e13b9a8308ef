// PeriodicTimer: runs a task on an event loop every `interval` until stopped, for the daemon's
// background checks (HeapTrimmer, DeletedCacheGuard). Not thread-safe: start() and stop() on the
// loop's thread, or once the loop has stopped.
#pragma once

#include <functional>

#include "cachelib/common/event_loop.h"

namespace tiercache {

class PeriodicTimer {
 public:
  PeriodicTimer(EventLoop& loop, Nanos interval, std::function<void()> task)
      : loop_(loop), interval_(interval), task_(std::move(task)) {}
  ~PeriodicTimer() { stop(); }
  PeriodicTimer(const PeriodicTimer&) = delete;
  PeriodicTimer& operator=(const PeriodicTimer&) = delete;

  void start();
  // Cancels the next run.
  void stop();

 private:
  void arm();

  EventLoop& loop_;
  const Nanos interval_;
  const std::function<void()> task_;
  bool armed_ = false;
  EventLoop::TimerId timer_{};
};

}  // namespace tiercache
