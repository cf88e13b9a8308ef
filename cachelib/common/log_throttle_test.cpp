#include "cachelib/common/log_throttle.h"

#include <gtest/gtest.h>

namespace tiercache {
namespace {

using std::chrono::milliseconds;

// Two lines a second: the third and fourth calls of a second are left out, and the first line of
// the next second (a second after the window's first call) says so.
TEST(LogThrottleTest, LinesPerSecondAndWhatWasLeftOut) {
  LogThrottle t(2);
  uint64_t unlogged = 99;
  EXPECT_TRUE(t.due(milliseconds(5000), &unlogged));
  EXPECT_EQ(unlogged, 0u);
  EXPECT_TRUE(t.due(milliseconds(5100), &unlogged));
  EXPECT_FALSE(t.due(milliseconds(5200), &unlogged));
  EXPECT_FALSE(t.due(milliseconds(5999), &unlogged));
  EXPECT_TRUE(t.due(milliseconds(6000), &unlogged));
  EXPECT_EQ(unlogged, 2u);
  EXPECT_TRUE(t.due(milliseconds(6001), &unlogged));
  EXPECT_EQ(unlogged, 0u);
}

TEST(LogThrottleTest, OneASecondByDefault) {
  LogThrottle t;
  uint64_t unlogged = 0;
  EXPECT_TRUE(t.due(milliseconds(-3), &unlogged));  // any first time, the clock's start too
  EXPECT_FALSE(t.due(milliseconds(990), &unlogged));
  EXPECT_TRUE(t.due(milliseconds(997), &unlogged));
  EXPECT_EQ(unlogged, 1u);
}

}  // namespace
}  // namespace tiercache
