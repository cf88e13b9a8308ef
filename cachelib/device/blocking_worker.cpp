#include "cachelib/device/blocking_worker.h"

#include <pthread.h>

namespace tiercache {

BlockingWorker::~BlockingWorker() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void BlockingWorker::run(EventLoop& loop, Job job, Done done) {
  {
    std::lock_guard lock(mu_);
    queue_.push_back(Item{&loop, std::move(job), std::move(done)});
    if (!thread_.joinable()) {
      thread_ = std::thread([this] { thread_main(); });
      pthread_setname_np(thread_.native_handle(), "tc-blocking");
    }
  }
  cv_.notify_one();
}

void BlockingWorker::thread_main() {
  for (;;) {
    Item item;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping and drained
      item = std::move(queue_.front());
      queue_.pop_front();
    }
    int err = item.job();
    item.loop->post([done = std::move(item.done), err] { done(err); });
  }
}

}  // namespace tiercache
