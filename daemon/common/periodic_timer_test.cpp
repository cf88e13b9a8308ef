// PeriodicTimer on a virtual clock: a run every interval, none after stop(), and none before
// start().
#include "daemon/common/periodic_timer.h"

#include <gtest/gtest.h>

#include "cachelib/common/sim_event_loop.h"

namespace tiercache {
namespace {

TEST(PeriodicTimerTest, RunsEveryIntervalUntilStopped) {
  SimEventLoop loop;
  int runs = 0;
  PeriodicTimer timer(loop, std::chrono::seconds(5), [&] { ++runs; });
  loop.run_for(std::chrono::seconds(20));
  EXPECT_EQ(runs, 0);
  timer.start();
  loop.run_for(std::chrono::seconds(4));
  EXPECT_EQ(runs, 0);
  loop.run_for(std::chrono::seconds(1));
  EXPECT_EQ(runs, 1);
  loop.run_for(std::chrono::seconds(10));
  EXPECT_EQ(runs, 3);
  timer.stop();
  EXPECT_EQ(loop.pending(), 0u);
  loop.run_for(std::chrono::seconds(20));
  EXPECT_EQ(runs, 3);
}

}  // namespace
}  // namespace tiercache
