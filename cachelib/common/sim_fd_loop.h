// SimFdLoop: test-only EventLoop on virtual time that also watches fds. Tasks and timers run on
// a SimEventLoop (time moves only when the test says so); watched fds are polled (without
// waiting) by Pump(), which calls their callbacks like a level-triggered epoll would.
// Lets a connection (NBD, control socket) run over a socketpair with no real sleeps.
// Single-threaded.
#pragma once

#include <poll.h>
#include <sys/epoll.h>

#include <map>
#include <memory>
#include <vector>

#include "cachelib/common/sim_event_loop.h"

namespace tiercache {

class SimFdLoop final : public EventLoop {
 public:
  void post(Task task) override { sim_.post(std::move(task)); }
  TimerId schedule_at(Nanos when, Task task) override {
    return sim_.schedule_at(when, std::move(task));
  }
  void cancel(TimerId id) override { sim_.cancel(id); }
  Status watch_fd(int fd, uint32_t events, FdCallback cb) override {
    fds_[fd] = {events, std::make_shared<FdCallback>(std::move(cb))};
    return Status::Ok();
  }
  Status modify_fd(int fd, uint32_t events) override {
    fds_[fd].events = events;
    return Status::Ok();
  }
  void unwatch_fd(int fd) override { fds_.erase(fd); }
  const Clock& clock() const override { return sim_.clock(); }

  SimEventLoop& sim() { return sim_; }
  bool watching() const { return !fds_.empty(); }

  // Runs ready tasks and due timers and delivers fd events until nothing more happens at the
  // current virtual time. Never advances the clock.
  void Pump() {
    for (int idle = 0, i = 0; idle < 2 && i < 100000; ++i) {
      sim_.run_for(Nanos(0));
      idle = DispatchFds() ? 0 : idle + 1;
    }
  }

 private:
  struct Watch {
    uint32_t events = 0;
    std::shared_ptr<FdCallback> cb;
  };

  // Calls the callback of every watched fd that is ready now; true if any was.
  bool DispatchFds() {
    std::vector<std::pair<int, Watch>> ready;
    for (const auto& [fd, watch] : fds_) {
      pollfd p{fd, short(((watch.events & EPOLLIN) ? POLLIN : 0) |
                         ((watch.events & EPOLLOUT) ? POLLOUT : 0)),
               0};
      if (::poll(&p, 1, 0) != 1) continue;
      uint32_t events = ((p.revents & POLLIN) ? EPOLLIN : 0u) |
                        ((p.revents & POLLOUT) ? EPOLLOUT : 0u) |
                        ((p.revents & POLLHUP) ? EPOLLHUP : 0u) |
                        ((p.revents & POLLERR) ? EPOLLERR : 0u);
      if (events != 0) ready.push_back({fd, {events, watch.cb}});
    }
    ScopedCurrent scope(this);
    for (auto& [fd, watch] : ready) {
      if (fds_.count(fd) != 0) (*watch.cb)(watch.events);
    }
    return !ready.empty();
  }

  SimEventLoop sim_;
  std::map<int, Watch> fds_;
};

}  // namespace tiercache
