// BlockingWorker: one helper thread that runs blocking syscalls (fdatasync, fallocate, ioctl) for
// FileDevice so that event loops never block; each result is posted back to the loop that asked.
// Thread-safe. The thread starts on first use; destruction runs the queued jobs, then joins.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "cachelib/common/event_loop.h"

namespace tiercache {

class BlockingWorker {
 public:
  // Returns 0 or an errno value.
  using Job = std::function<int()>;
  using Done = std::function<void(int err)>;

  BlockingWorker() = default;
  ~BlockingWorker();
  BlockingWorker(const BlockingWorker&) = delete;
  BlockingWorker& operator=(const BlockingWorker&) = delete;

  // Runs `job` on the helper thread, then done(result) on `loop`. Thread-safe.
  void run(EventLoop& loop, Job job, Done done);

 private:
  struct Item {
    EventLoop* loop;
    Job job;
    Done done;
  };
  void thread_main();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Item> queue_;  // GUARDED_BY(mu_)
  bool stopping_ = false;   // GUARDED_BY(mu_)
  std::thread thread_;      // started under mu_
};

}  // namespace tiercache
