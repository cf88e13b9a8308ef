// EventLoop: the scheduling interface the engine, devices and front-ends run on.
// Two implementations: EpollEventLoop (real time, one thread, watches fds) and SimEventLoop
// (virtual time, deterministic, no fds). Code that needs "the loop I am running on" asks
// EventLoop::current(); completions are always delivered on the loop that submitted the request.
#pragma once

#include <cstdint>
#include <functional>

#include "cachelib/common/clock.h"
#include "cachelib/common/loop_waiter.h"
#include "cachelib/common/status.h"

namespace tiercache {

class EventLoop {
 public:
  using Task = std::function<void()>;
  using TimerId = uint64_t;
  // epoll-style event bits passed to fd callbacks (EPOLLIN, EPOLLOUT, EPOLLERR, EPOLLHUP).
  using FdCallback = std::function<void(uint32_t events)>;

  virtual ~EventLoop() = default;

  // Runs `task` on this loop's thread, after the current task finishes. Thread-safe.
  // Tasks posted from one thread run in posting order.
  virtual void post(Task task) = 0;

  // Runs `task` on this loop's thread once clock().now() >= when. Thread-safe.
  virtual TimerId schedule_at(Nanos when, Task task) = 0;
  TimerId schedule_after(Nanos delay, Task task) {
    return schedule_at(clock().now() + delay, std::move(task));
  }
  // Cancels a timer that has not fired yet; a no-op otherwise. Thread-safe.
  virtual void cancel(TimerId id) = 0;

  // Calls `cb` on this loop's thread whenever `fd` has any of `events` (level-triggered).
  // REQUIRES: called on this loop's thread. NotSupported on loops without fds (SimEventLoop).
  virtual Status watch_fd(int fd, uint32_t events, FdCallback cb) = 0;
  virtual Status modify_fd(int fd, uint32_t events) = 0;
  virtual void unwatch_fd(int fd) = 0;

  virtual const Clock& clock() const = 0;

  // Lets `waiter` do this loop's sleeping from now on (see LoopWaiter); false on loops that
  // cannot (no fds, or one is installed already). REQUIRES: on this loop's thread.
  virtual bool install_waiter(LoopWaiter* /*waiter*/) { return false; }
  // Back to the loop's own sleeping. REQUIRES: on this loop's thread; `waiter` installed.
  virtual void remove_waiter(LoopWaiter* /*waiter*/) {}

  // True when called from the thread currently running this loop.
  bool in_loop_thread() const { return current() == this; }

  // The loop whose thread is calling, or nullptr outside any loop.
  static EventLoop* current();

 public:
  // Makes `loop` current() on this thread for the scope. Implementations bracket their
  // dispatching with it; tests use it to submit I/O from the test body onto a SimEventLoop.
  class ScopedCurrent {
   public:
    explicit ScopedCurrent(EventLoop* loop);
    ~ScopedCurrent();
    ScopedCurrent(const ScopedCurrent&) = delete;
    ScopedCurrent& operator=(const ScopedCurrent&) = delete;

   private:
    EventLoop* previous_;
  };
};

}  // namespace tiercache
