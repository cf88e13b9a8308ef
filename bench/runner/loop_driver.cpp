#include "bench/runner/loop_driver.h"

#include <condition_variable>
#include <mutex>
#include <thread>

#include "cachelib/common/epoll_event_loop.h"
#include "cachelib/common/sim_event_loop.h"

namespace tiercache::bench {
namespace {

class SimDriver final : public LoopDriver {
 public:
  EventLoop& loop() override { return loop_; }
  bool realtime() const override { return false; }
  bool run(const std::function<void(Finish)>& start) override {
    bool done = false;
    {
      EventLoop::ScopedCurrent scope(&loop_);
      start([&done] { done = true; });
    }
    return loop_.run_until([&done] { return done; });
  }
  void idle(Nanos d) override { loop_.run_for(d); }

 private:
  SimEventLoop loop_;
};

class RealDriver final : public LoopDriver {
 public:
  explicit RealDriver(std::unique_ptr<LoopThread> thread) : thread_(std::move(thread)) {}
  EventLoop& loop() override { return thread_->loop(); }
  bool realtime() const override { return true; }
  bool run(const std::function<void(Finish)>& start) override {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    thread_->loop().post([&] {
      start([&] {
        std::lock_guard lock(mu);
        done = true;
        cv.notify_one();
      });
    });
    std::unique_lock lock(mu);
    cv.wait(lock, [&done] { return done; });
    return true;
  }
  void idle(Nanos d) override { std::this_thread::sleep_for(d); }

 private:
  std::unique_ptr<LoopThread> thread_;
};

}  // namespace

Result<std::unique_ptr<LoopDriver>> LoopDriver::Create(bool realtime) {
  if (!realtime) return std::unique_ptr<LoopDriver>(new SimDriver());
  auto thread = LoopThread::Start("tc-bench");
  if (!thread.ok()) return thread.status();
  return std::unique_ptr<LoopDriver>(new RealDriver(std::move(thread).value()));
}

}  // namespace tiercache::bench
