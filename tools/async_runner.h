// AsyncRunner: lets a synchronous tool run the engine's asynchronous operations (Device I/O,
// MetadataStore::Format/Open) to completion: it owns one LoopThread and blocks the caller until
// the operation's callback runs. Destroy Devices and stores that used it before the runner.
// REQUIRES: run() is not called from the loop thread.
#pragma once

#include <functional>
#include <future>
#include <memory>
#include <optional>

#include "cachelib/common/epoll_event_loop.h"
#include "cachelib/common/status.h"

namespace tiercache {

class AsyncRunner {
 public:
  static Result<std::unique_ptr<AsyncRunner>> Start();

  // Calls start(done) on the loop thread and waits until done(status) runs; returns the status.
  Status run(const std::function<void(std::function<void(Status)>)>& start);

  // Same for operations that complete with a Result<T>.
  template <typename T>
  Result<T> run_result(const std::function<void(std::function<void(Result<T>)>)>& start) {
    std::optional<Result<T>> out;
    Status status = run([&](std::function<void(Status)> done) {
      start([&out, done](Result<T> result) {
        out.emplace(std::move(result));
        done(Status::Ok());
      });
    });
    if (!status.ok()) return status;
    return std::move(*out);
  }

 private:
  explicit AsyncRunner(std::unique_ptr<LoopThread> thread) : thread_(std::move(thread)) {}
  std::unique_ptr<LoopThread> thread_;
};

}  // namespace tiercache
