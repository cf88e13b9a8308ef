// SimEventLoop: a single-threaded EventLoop on a ManualClock, for virtual-time benchmarks and
// deterministic tests. Time only advances when no task is ready: run_until_idle() jumps the clock to
// the next timer. Same inputs, same order of events. post() and schedule_at() are thread-safe, but
// only one thread may run the loop.
#pragma once

#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "cachelib/common/event_loop.h"

namespace tiercache {

class SimEventLoop final : public EventLoop {
 public:
  explicit SimEventLoop(Nanos start = Nanos(0)) : clock_(start) {}

  void post(Task task) override;
  TimerId schedule_at(Nanos when, Task task) override;
  void cancel(TimerId id) override;
  Status watch_fd(int, uint32_t, FdCallback) override;
  Status modify_fd(int, uint32_t) override;
  void unwatch_fd(int) override {}
  const Clock& clock() const override { return clock_; }

  // Runs one ready task, or else advances time to the earliest timer and runs it.
  // Returns false when there is nothing left to do.
  bool run_one();
  // Runs until no tasks and no timers remain. Returns the number of tasks run.
  uint64_t run_until_idle();
  // Runs until pred() is true (checked after every task) or nothing is left; returns pred().
  bool run_until(const std::function<bool()>& pred);
  // Runs everything due up to now()+d, then sets the clock to now()+d.
  void run_for(Nanos d);

  size_t pending() const;

 private:
  bool pop_ready(Task* out);
  bool pop_timer(Nanos limit, Task* out);

  ManualClock clock_;
  mutable std::mutex mu_;
  // Ready tasks, a ring that keeps its capacity (a std::deque allocates a block every 16 posts):
  // ready_count_ tasks from ready_head_; the size is 0 or a power of 2.
  std::vector<Task> ready_;
  size_t ready_head_ = 0, ready_count_ = 0;
  // (when, sequence) -> task; the sequence keeps equal-time timers in scheduling order.
  std::map<std::pair<int64_t, uint64_t>, Task> timers_;
  std::map<TimerId, std::pair<int64_t, uint64_t>> timer_keys_;
  uint64_t next_seq_ = 1;
};

}  // namespace tiercache
