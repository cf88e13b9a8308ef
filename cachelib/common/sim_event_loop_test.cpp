#include "cachelib/common/sim_event_loop.h"

#include <gtest/gtest.h>

#include <vector>

namespace tiercache {
namespace {

TEST(SimEventLoopTest, RunsPostedTasksInOrderBeforeTimers) {
  SimEventLoop loop;
  std::vector<int> order;
  loop.schedule_after(Nanos(10), [&] { order.push_back(3); });
  loop.post([&] { order.push_back(1); });
  loop.post([&] { order.push_back(2); });
  EXPECT_EQ(loop.run_until_idle(), 3u);
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(loop.clock().now(), Nanos(10));
}

TEST(SimEventLoopTest, TimersAdvanceVirtualTimeAndKeepTieOrder) {
  SimEventLoop loop;
  std::vector<int64_t> seen;
  loop.schedule_at(Nanos(500), [&] { seen.push_back(loop.clock().now().count()); });
  loop.schedule_at(Nanos(100), [&] { seen.push_back(1); });
  loop.schedule_at(Nanos(100), [&] { seen.push_back(2); });
  auto cancelled = loop.schedule_at(Nanos(200), [&] { seen.push_back(99); });
  loop.cancel(cancelled);
  loop.run_until_idle();
  EXPECT_EQ(seen, (std::vector<int64_t>{1, 2, 500}));
}

TEST(SimEventLoopTest, RunForStopsAtDeadlineAndCurrentIsSet) {
  SimEventLoop loop;
  int fired = 0;
  EventLoop* seen_current = nullptr;
  loop.schedule_at(Nanos(50), [&] { ++fired; seen_current = EventLoop::current(); });
  loop.schedule_at(Nanos(150), [&] { ++fired; });
  loop.run_for(Nanos(100));
  EXPECT_EQ(fired, 1);
  EXPECT_EQ(seen_current, &loop);
  EXPECT_EQ(loop.clock().now(), Nanos(100));
  EXPECT_EQ(loop.pending(), 1u);
  EXPECT_EQ(EventLoop::current(), nullptr);
  EXPECT_FALSE(loop.watch_fd(0, 0, nullptr).ok());
}

}  // namespace
}  // namespace tiercache
