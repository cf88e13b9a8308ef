#include "cachelib/common/epoll_event_loop.h"

#include <pthread.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <cerrno>
#include <future>

namespace tiercache {

Result<std::unique_ptr<EpollEventLoop>> EpollEventLoop::Create(EpollLoopOptions options) {
  int epfd = epoll_create1(EPOLL_CLOEXEC);
  if (epfd < 0) return Status::FromErrno(errno, "epoll_create1");
  int wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wakefd < 0) {
    Status s = Status::FromErrno(errno, "eventfd");
    close(epfd);
    return s;
  }
  int timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if (timerfd < 0) {
    Status s = Status::FromErrno(errno, "timerfd_create");
    close(epfd);
    close(wakefd);
    return s;
  }
  for (int fd : {wakefd, timerfd}) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
      Status s = Status::FromErrno(errno, "epoll_ctl add");
      close(epfd);
      close(wakefd);
      close(timerfd);
      return s;
    }
  }
  return std::unique_ptr<EpollEventLoop>(new EpollEventLoop(epfd, wakefd, timerfd, options));
}

EpollEventLoop::EpollEventLoop(int epfd, int wakefd, int timerfd, EpollLoopOptions options)
    : epfd_(epfd), wakefd_(wakefd), timerfd_(timerfd), options_(options) {
  // Room for the posted tasks of a busy round from the start: grown on demand, a round larger
  // than any before it (timing decides, e.g. which completions one wake-up brings) allocated
  // now and then on the hit path, long after any warm-up (seen in ublk_alloc_test).
  posted_.reserve(kReservedTasks);
  running_.reserve(kReservedTasks);
}

EpollEventLoop::~EpollEventLoop() {
  close(timerfd_);
  close(wakefd_);
  close(epfd_);
}

void EpollEventLoop::wake() {
  uint64_t one = 1;
  ssize_t n = write(wakefd_, &one, sizeof one);
  (void)n;  // EAGAIN means the counter is already non-zero: the loop will wake anyway.
}

void EpollEventLoop::post(Task task) {
  bool was_empty;
  {
    std::lock_guard lock(mu_);
    was_empty = posted_.empty();
    posted_.push_back(std::move(task));
  }
  // The loop thread drains posted_ before sleeping, so it needs no wake-up for its own posts.
  if (was_empty && !in_loop_thread()) wake();
}

EventLoop::TimerId EpollEventLoop::schedule_at(Nanos when, Task task) {
  std::lock_guard lock(mu_);
  TimerId id = next_timer_id_++;
  auto key = std::make_pair(int64_t(when.count()), id);
  timers_.emplace(key, std::move(task));
  timer_keys_.emplace(id, key);
  if (armed_for_ < 0 || key.first < armed_for_) arm_timerfd_locked();
  return id;
}

void EpollEventLoop::cancel(TimerId id) {
  std::lock_guard lock(mu_);
  auto it = timer_keys_.find(id);
  if (it == timer_keys_.end()) return;
  timers_.erase(it->second);
  timer_keys_.erase(it);
}

void EpollEventLoop::arm_timerfd_locked() {
  itimerspec spec{};
  if (timers_.empty()) {
    armed_for_ = -1;
  } else {
    int64_t when = timers_.begin()->first.first;
    if (when <= 0) when = 1;  // zero would disarm the timer
    spec.it_value.tv_sec = when / 1'000'000'000;
    spec.it_value.tv_nsec = when % 1'000'000'000;
    armed_for_ = when;
  }
  timerfd_settime(timerfd_, TFD_TIMER_ABSTIME, &spec, nullptr);
}

Status EpollEventLoop::watch_fd(int fd, uint32_t events, FdCallback cb) {
  epoll_event ev{};
  ev.events = events;
  ev.data.fd = fd;
  if (epoll_ctl(epfd_, EPOLL_CTL_ADD, fd, &ev) < 0) return Status::FromErrno(errno, "epoll_ctl add");
  fd_callbacks_[fd] = std::make_shared<FdCallback>(std::move(cb));
  return Status::Ok();
}

Status EpollEventLoop::modify_fd(int fd, uint32_t events) {
  epoll_event ev{};
  ev.events = events;
  ev.data.fd = fd;
  if (epoll_ctl(epfd_, EPOLL_CTL_MOD, fd, &ev) < 0) return Status::FromErrno(errno, "epoll_ctl mod");
  return Status::Ok();
}

void EpollEventLoop::unwatch_fd(int fd) {
  epoll_ctl(epfd_, EPOLL_CTL_DEL, fd, nullptr);
  fd_callbacks_.erase(fd);
}

void EpollEventLoop::run_posted() {
  // Swapped with a kept vector, not a fresh one: both keep their capacity, so a round of posted
  // tasks allocates nothing.
  {
    std::lock_guard lock(mu_);
    running_.swap(posted_);
  }
  for (auto& task : running_) task();
  running_.clear();
}

void EpollEventLoop::run_due_timers() {
  uint64_t expirations;
  ssize_t n = read(timerfd_, &expirations, sizeof expirations);
  (void)n;
  for (;;) {
    Task task;
    {
      std::lock_guard lock(mu_);
      if (timers_.empty()) break;
      auto it = timers_.begin();
      if (it->first.first > clock().now().count()) break;
      task = std::move(it->second);
      timer_keys_.erase(it->first.second);
      timers_.erase(it);
    }
    task();
  }
  std::lock_guard lock(mu_);
  arm_timerfd_locked();
}

bool EpollEventLoop::install_waiter(LoopWaiter* waiter) {
  if (waiter_ != nullptr) return false;
  waiter_ = waiter;
  return true;
}

void EpollEventLoop::remove_waiter(LoopWaiter* waiter) {
  if (waiter_ == waiter) waiter_ = nullptr;
}

int EpollEventLoop::wait_for_events(epoll_event* events, int max, bool block) {
  if (waiter_ == nullptr) return epoll_wait(epfd_, events, max, block ? -1 : 0);
  // The waiter may go away during its wait (its last user ended in a completion).
  if (!waiter_->wait(epfd_, block)) return 0;
  return epoll_wait(epfd_, events, max, 0);
}

void EpollEventLoop::run() {
  ScopedCurrent scope(this);
  epoll_event events[64];
  const int64_t busy_poll = options_.busy_poll.count();
  int64_t poll_until = 0;  // spin instead of sleeping until then
  while (!stop_.load(std::memory_order_acquire)) {
    bool have_posted;
    {
      std::lock_guard lock(mu_);
      have_posted = !posted_.empty();
    }
    bool polling = !have_posted && busy_poll > 0 && clock().now().count() < poll_until;
    int n = wait_for_events(events, 64, !have_posted && !polling);
    if (n < 0 && errno != EINTR) break;
    if (busy_poll > 0) {
      if (n > 0 || have_posted) {
        poll_until = clock().now().count() + busy_poll;
      } else if (polling) {
        sched_yield();  // a client on this CPU gets to run; it is what we are waiting for
      }
    }
    for (int i = 0; i < n; ++i) {
      int fd = events[i].data.fd;
      if (fd == wakefd_) {
        uint64_t v;
        ssize_t r = read(wakefd_, &v, sizeof v);
        (void)r;
      } else if (fd == timerfd_) {
        run_due_timers();
      } else {
        auto it = fd_callbacks_.find(fd);
        if (it == fd_callbacks_.end()) continue;
        std::shared_ptr<FdCallback> cb = it->second;
        (*cb)(events[i].events);
      }
    }
    run_posted();
  }
  run_posted();
}

void EpollEventLoop::stop() {
  stop_.store(true, std::memory_order_release);
  wake();
}

Result<std::unique_ptr<LoopThread>> LoopThread::Start(const char* name, EpollLoopOptions options) {
  auto loop = EpollEventLoop::Create(options);
  if (!loop.ok()) return loop.status();
  std::unique_ptr<LoopThread> t(new LoopThread(std::move(loop).value()));
  pthread_setname_np(t->thread_.native_handle(), name);
  return t;
}

LoopThread::LoopThread(std::unique_ptr<EpollEventLoop> loop)
    : loop_(std::move(loop)), thread_([this] { loop_->run(); }) {}

LoopThread::~LoopThread() {
  loop_->stop();
  if (thread_.joinable()) thread_.join();
}

void LoopThread::run_sync(const EventLoop::Task& fn) {
  std::promise<void> done;
  loop_->post([&] {
    fn();
    done.set_value();
  });
  done.get_future().wait();
}

}  // namespace tiercache
