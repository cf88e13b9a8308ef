#include "tools/async_runner.h"

namespace tiercache {

Result<std::unique_ptr<AsyncRunner>> AsyncRunner::Start() {
  Result<std::unique_ptr<LoopThread>> thread = LoopThread::Start("tiercache-io");
  if (!thread.ok()) return thread.status();
  return std::unique_ptr<AsyncRunner>(new AsyncRunner(std::move(thread).value()));
}

Status AsyncRunner::run(const std::function<void(std::function<void(Status)>)>& start) {
  auto promise = std::make_shared<std::promise<Status>>();
  std::future<Status> future = promise->get_future();
  thread_->loop().post([&start, promise] {
    start([promise](Status status) { promise->set_value(std::move(status)); });
  });
  return future.get();
}

}  // namespace tiercache
