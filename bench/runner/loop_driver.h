// LoopDriver: runs benchmark steps on an event loop and waits for them, in virtual time (a
// SimEventLoop driven on the calling thread) or real time (an EpollEventLoop on its own thread).
// Await() turns a callback-style operation into a synchronous call for the runner's sequential
// steps. Not thread-safe: one runner thread drives it.
#pragma once

#include <functional>
#include <memory>
#include <optional>

#include "cachelib/common/event_loop.h"

namespace tiercache::bench {

class LoopDriver {
 public:
  using Finish = std::function<void()>;
  virtual ~LoopDriver() = default;

  // Virtual time with a fresh clock at 0, or real time (fails if the loop cannot be created).
  static Result<std::unique_ptr<LoopDriver>> Create(bool realtime);

  virtual EventLoop& loop() = 0;
  virtual bool realtime() const = 0;
  // Calls start(finish) on the loop and returns once finish() has been called (on the loop).
  // Returns false if, in virtual time, the loop ran out of work first (a lost completion).
  virtual bool run(const std::function<void(Finish)>& start) = 0;
  // Lets background work (cleaners, destaging) run for `d`.
  virtual void idle(Nanos d) = 0;
  // Current time on the loop's clock.
  Nanos now() { return loop().clock().now(); }
};

// Runs `submit(done)` on the loop and returns the value passed to done, or `stalled` if done was
// never called.
template <typename T>
T Await(LoopDriver& driver, const std::function<void(std::function<void(T)>)>& submit,
        T stalled) {
  std::optional<T> result;
  driver.run([&](LoopDriver::Finish finish) {
    submit([&result, finish](T value) {
      result.emplace(std::move(value));
      finish();
    });
  });
  return result ? std::move(*result) : std::move(stalled);
}

}  // namespace tiercache::bench
