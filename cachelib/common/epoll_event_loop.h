// EpollEventLoop: a real-time EventLoop on one thread: epoll for fds, an eventfd to wake it for
// posted tasks, a timerfd (CLOCK_MONOTONIC, nanosecond precision) for timers.
// run() dispatches on the calling thread until stop(); everything else is thread-safe unless noted.
// A LoopWaiter (the loop's io_uring) may take over the sleeping, so that one io_uring_enter both
// waits for fd events and for I/O completions.
// Optionally it busy-polls for a short while after each event instead of sleeping at once,
// which saves a wake-up per request when requests and completions arrive microseconds apart.
#pragma once

#include <sys/epoll.h>

#include <atomic>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "cachelib/common/event_loop.h"

namespace tiercache {

struct EpollLoopOptions {
  // After a round that dispatched anything, keep checking for events without sleeping for
  // this long (yielding the CPU to other runnable threads between checks); then sleep in
  // epoll_wait. An idle loop sleeps; a loop waiting milliseconds (an HDD seek) spins only
  // this long per event. 0 (default) never spins.
  Nanos busy_poll{0};
};

class EpollEventLoop final : public EventLoop {
 public:
  // Creating the epoll, eventfd and timerfd can fail: use Create().
  static Result<std::unique_ptr<EpollEventLoop>> Create(EpollLoopOptions options = {});
  ~EpollEventLoop() override;

  void post(Task task) override;
  TimerId schedule_at(Nanos when, Task task) override;
  void cancel(TimerId id) override;
  Status watch_fd(int fd, uint32_t events, FdCallback cb) override;
  Status modify_fd(int fd, uint32_t events) override;
  void unwatch_fd(int fd) override;
  const Clock& clock() const override { return SteadyClock::instance(); }
  bool install_waiter(LoopWaiter* waiter) override;
  void remove_waiter(LoopWaiter* waiter) override;

  // Dispatches events on the calling thread until stop() is called. Runs posted tasks that were
  // queued before stop() before returning.
  void run();
  void stop();

 private:
  EpollEventLoop(int epfd, int wakefd, int timerfd, EpollLoopOptions options);
  void wake();
  void run_posted();
  void run_due_timers();
  void arm_timerfd_locked();
  // epoll_wait, or the waiter's sleep followed by a non-blocking epoll_wait when it saw the
  // epoll fd ready.
  int wait_for_events(epoll_event* events, int max, bool block);

  // Posted tasks a round holds without growing its vectors (32 bytes each).
  static constexpr size_t kReservedTasks = 1024;

  const int epfd_;
  const int wakefd_;
  const int timerfd_;
  const EpollLoopOptions options_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> sleeping_{false};

  std::mutex mu_;
  std::vector<Task> posted_;
  std::vector<Task> running_;  // loop-thread only: the batch run_posted() runs
  std::map<std::pair<int64_t, uint64_t>, Task> timers_;
  std::unordered_map<TimerId, std::pair<int64_t, uint64_t>> timer_keys_;
  uint64_t next_timer_id_ = 1;
  int64_t armed_for_ = -1;

  LoopWaiter* waiter_ = nullptr;  // loop-thread only
  // Loop-thread only. shared_ptr so a callback that unwatches itself stays alive while running.
  std::unordered_map<int, std::shared_ptr<FdCallback>> fd_callbacks_;
};

// Runs an EpollEventLoop on its own thread. Destruction stops and joins it.
class LoopThread {
 public:
  static Result<std::unique_ptr<LoopThread>> Start(const char* name,
                                                  EpollLoopOptions options = {});
  ~LoopThread();
  EpollEventLoop& loop() { return *loop_; }
  // Runs `fn` on the loop thread and waits for it. REQUIRES: not called from the loop thread.
  void run_sync(const EventLoop::Task& fn);
  // Starts an asynchronous call on the loop thread and waits for the value it completes with:
  // `fn` receives a callback taking a T (Status, Result<...>). REQUIRES: not the loop thread.
  template <typename T, typename Fn>
  T call(Fn fn) {
    std::promise<T> p;
    loop_->post([&] { fn([&p](T v) { p.set_value(std::move(v)); }); });
    return p.get_future().get();
  }

 private:
  explicit LoopThread(std::unique_ptr<EpollEventLoop> loop);
  std::unique_ptr<EpollEventLoop> loop_;
  std::thread thread_;
};

}  // namespace tiercache
