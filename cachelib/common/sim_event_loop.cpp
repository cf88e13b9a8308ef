#include "cachelib/common/sim_event_loop.h"

#include <algorithm>

namespace tiercache {

void SimEventLoop::post(Task task) {
  std::lock_guard lock(mu_);
  if (ready_count_ == ready_.size()) {
    std::vector<Task> bigger(std::max<size_t>(16, ready_.size() * 2));
    for (size_t i = 0; i < ready_count_; ++i) {
      bigger[i] = std::move(ready_[(ready_head_ + i) & (ready_.size() - 1)]);
    }
    ready_.swap(bigger);
    ready_head_ = 0;
  }
  ready_[(ready_head_ + ready_count_++) & (ready_.size() - 1)] = std::move(task);
}

EventLoop::TimerId SimEventLoop::schedule_at(Nanos when, Task task) {
  std::lock_guard lock(mu_);
  TimerId id = next_seq_++;
  auto key = std::make_pair(int64_t(when.count()), id);
  timers_.emplace(key, std::move(task));
  timer_keys_.emplace(id, key);
  return id;
}

void SimEventLoop::cancel(TimerId id) {
  std::lock_guard lock(mu_);
  auto it = timer_keys_.find(id);
  if (it == timer_keys_.end()) return;
  timers_.erase(it->second);
  timer_keys_.erase(it);
}

Status SimEventLoop::watch_fd(int, uint32_t, FdCallback) {
  return Status::NotSupported("SimEventLoop has no file descriptors");
}

Status SimEventLoop::modify_fd(int, uint32_t) {
  return Status::NotSupported("SimEventLoop has no file descriptors");
}

bool SimEventLoop::pop_ready(Task* out) {
  std::lock_guard lock(mu_);
  if (ready_count_ == 0) return false;
  *out = std::move(ready_[ready_head_]);
  ready_[ready_head_] = nullptr;
  ready_head_ = (ready_head_ + 1) & (ready_.size() - 1);
  --ready_count_;
  return true;
}

bool SimEventLoop::pop_timer(Nanos limit, Task* out) {
  std::lock_guard lock(mu_);
  if (timers_.empty()) return false;
  auto it = timers_.begin();
  if (it->first.first > limit.count()) return false;
  if (it->first.first > clock_.now().count()) clock_.set(Nanos(it->first.first));
  *out = std::move(it->second);
  timer_keys_.erase(it->first.second);
  timers_.erase(it);
  return true;
}

bool SimEventLoop::run_one() {
  Task task;
  if (!pop_ready(&task) && !pop_timer(Nanos::max(), &task)) return false;
  ScopedCurrent scope(this);
  task();
  return true;
}

uint64_t SimEventLoop::run_until_idle() {
  uint64_t n = 0;
  while (run_one()) ++n;
  return n;
}

bool SimEventLoop::run_until(const std::function<bool()>& pred) {
  while (!pred()) {
    if (!run_one()) return pred();
  }
  return true;
}

void SimEventLoop::run_for(Nanos d) {
  const Nanos end = clock_.now() + d;
  for (;;) {
    Task task;
    if (!pop_ready(&task) && !pop_timer(end, &task)) break;
    ScopedCurrent scope(this);
    task();
  }
  if (clock_.now() < end) clock_.set(end);
}

size_t SimEventLoop::pending() const {
  std::lock_guard lock(mu_);
  return ready_count_ + timers_.size();
}

}  // namespace tiercache
