#include "cachelib/engine/line_lock_table.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cachelib/common/sim_event_loop.h"

namespace tiercache {
namespace {

TEST(LineLockTableTest, GrowsItsBucketsWithTheLocksHeldAndKeepsEveryLock) {
  SimEventLoop loop;
  LineLockTable table(16);
  EXPECT_EQ(table.bucket_count(), 16u);
  EventLoop::Task unused;
  for (uint64_t line = 0; line < 16; ++line) {
    ASSERT_TRUE(table.lock_or_wait(line * 16, false, &loop, unused));
  }
  EXPECT_EQ(table.bucket_count(), 16u);  // one entry per bucket: no growth yet
  ASSERT_TRUE(table.lock_or_wait(16 * 16, false, &loop, unused));
  EXPECT_EQ(table.bucket_count(), 32u);
  for (uint64_t line = 17; line < 1000; ++line) {
    ASSERT_TRUE(table.lock_or_wait(line * 16, false, &loop, unused));
  }
  EXPECT_EQ(table.bucket_count(), 1024u);
  for (uint64_t line = 0; line < 1000; ++line) EXPECT_TRUE(table.is_locked(line * 16)) << line;
  EXPECT_FALSE(table.is_locked(1));
  for (uint64_t line = 0; line < 1000; ++line) table.unlock(line * 16, false);
  for (uint64_t line = 0; line < 1000; ++line) EXPECT_FALSE(table.is_locked(line * 16)) << line;
  EXPECT_EQ(table.bucket_count(), 1024u);  // kept: the next burst allocates nothing
}

TEST(LineLockTableTest, WaitersQueuedBeforeAGrowthAreGrantedInOrder) {
  SimEventLoop loop;
  LineLockTable table(16);
  EventLoop::Task unused;
  ASSERT_TRUE(table.lock_or_wait(7, false, &loop, unused));
  std::string order;
  EventLoop::Task writer = [&order] { order += "W"; };
  EventLoop::Task reader = [&order] { order += "R"; };
  EXPECT_FALSE(table.lock_or_wait(7, true, &loop, writer));
  EXPECT_FALSE(table.lock_or_wait(7, false, &loop, reader));  // FIFO: behind the writer
  for (uint64_t line = 100; line < 200; ++line) {
    ASSERT_TRUE(table.lock_or_wait(line, true, &loop, unused));
  }
  EXPECT_EQ(table.bucket_count(), 128u);
  table.unlock(7, false);
  loop.run_until_idle();
  EXPECT_EQ(order, "W");
  table.unlock(7, true);
  loop.run_until_idle();
  EXPECT_EQ(order, "WR");
  EXPECT_TRUE(table.is_locked(7));
  table.unlock(7, false);
  EXPECT_FALSE(table.is_locked(7));
}

}  // namespace
}  // namespace tiercache
