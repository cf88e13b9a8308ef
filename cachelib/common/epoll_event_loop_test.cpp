#include "cachelib/common/epoll_event_loop.h"

#include <gtest/gtest.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <atomic>
#include <future>

namespace tiercache {
namespace {

TEST(EpollEventLoopTest, PostFromOtherThreadRunsOnLoopThread) {
  auto t = LoopThread::Start("test-loop");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  std::promise<EventLoop*> p;
  (*t)->loop().post([&] { p.set_value(EventLoop::current()); });
  EXPECT_EQ(p.get_future().get(), &(*t)->loop());
}

TEST(EpollEventLoopTest, TimersFireInDeadlineOrderNotBefore) {
  auto t = LoopThread::Start("test-loop");
  ASSERT_TRUE(t.ok());
  EpollEventLoop& loop = (*t)->loop();
  std::promise<void> done;
  std::vector<int> order;
  Nanos start = loop.clock().now();
  Nanos fired_at{};
  loop.schedule_after(std::chrono::milliseconds(20), [&] {
    order.push_back(2);
    fired_at = loop.clock().now();
    done.set_value();
  });
  loop.schedule_after(std::chrono::milliseconds(5), [&] { order.push_back(1); });
  auto id = loop.schedule_after(std::chrono::milliseconds(10), [&] { order.push_back(99); });
  loop.cancel(id);
  done.get_future().wait();
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
  EXPECT_GE((fired_at - start).count(), std::chrono::nanoseconds(std::chrono::milliseconds(20)).count());
}

TEST(EpollEventLoopTest, WatchesFileDescriptors) {
  auto t = LoopThread::Start("test-loop");
  ASSERT_TRUE(t.ok());
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  std::promise<char> got;
  (*t)->run_sync([&] {
    ASSERT_TRUE((*t)->loop().watch_fd(fds[0], EPOLLIN, [&](uint32_t) {
      char c;
      ASSERT_EQ(read(fds[0], &c, 1), 1);
      (*t)->loop().unwatch_fd(fds[0]);
      got.set_value(c);
    }).ok());
  });
  ASSERT_EQ(write(fds[1], "x", 1), 1);
  EXPECT_EQ(got.get_future().get(), 'x');
  close(fds[0]);
  close(fds[1]);
}

// Thread CPU time of the loop thread (CLOCK_THREAD_CPUTIME_ID read on that thread).
Nanos LoopCpuTime(LoopThread& t) {
  Nanos cpu{};
  t.run_sync([&] {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    cpu = Nanos(int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec);
  });
  return cpu;
}

// A busy-polling loop still runs posted tasks, timers and fd callbacks, and once nothing has
// happened for busy_poll it sleeps: 300 ms of idleness cost it far less than 300 ms of CPU.
TEST(EpollEventLoopTest, BusyPollingLoopDispatchesEverythingAndSleepsWhenIdle) {
  EpollLoopOptions options;
  options.busy_poll = std::chrono::milliseconds(20);
  auto t = LoopThread::Start("poll-loop", options);
  ASSERT_TRUE(t.ok());
  EpollEventLoop& loop = (*t)->loop();
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  std::promise<void> all;
  int seen = 0;
  auto count = [&] {
    if (++seen == 3) all.set_value();
  };
  (*t)->run_sync([&] {
    ASSERT_TRUE(loop.watch_fd(fds[0], EPOLLIN, [&](uint32_t) {
      char c;
      ASSERT_EQ(read(fds[0], &c, 1), 1);
      loop.unwatch_fd(fds[0]);
      count();
    }).ok());
  });
  loop.post(count);
  loop.schedule_after(std::chrono::milliseconds(5), count);
  ASSERT_EQ(write(fds[1], "x", 1), 1);
  all.get_future().wait();
  EXPECT_EQ(seen, 3);

  Nanos before = LoopCpuTime(**t);
  usleep(300'000);
  Nanos idle_cpu = LoopCpuTime(**t) - before;
  // Spinning the whole time would cost ~300 ms; the poll window after each event is 20 ms.
  EXPECT_LT(idle_cpu.count(), std::chrono::nanoseconds(std::chrono::milliseconds(150)).count());
  close(fds[0]);
  close(fds[1]);
}

}  // namespace
}  // namespace tiercache
