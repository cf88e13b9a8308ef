#include "policy/admission/surge_board.h"

#include <gtest/gtest.h>

namespace tiercache {
namespace {

TEST(SurgeBoardTest, TheMeanCountsSlotsNeverPublishedAsZero) {
  SurgeBoard board(4);
  EXPECT_EQ(board.slots(), 4u);
  EXPECT_EQ(board.mean().fast, 0.0);
  EXPECT_EQ(board.mean().slow, 0.0);
  board.publish(1, {.fast = 0.8, .slow = 0.2});
  board.publish(3, {.fast = 0.4, .slow = 0.1});
  EXPECT_DOUBLE_EQ(board.mean().fast, 0.3);
  EXPECT_DOUBLE_EQ(board.mean().slow, 0.075);
  board.publish(1, {.fast = 0.0, .slow = 0.2});  // a slot holds its latest rates only
  EXPECT_DOUBLE_EQ(board.mean().fast, 0.1);
  EXPECT_DOUBLE_EQ(board.mean().slow, 0.075);
}

TEST(SurgeBoardTest, ABoardHasAtLeastOneSlot) {
  SurgeBoard board(0);
  EXPECT_EQ(board.slots(), 1u);
  board.publish(0, {.fast = 0.5, .slow = 0.25});
  EXPECT_DOUBLE_EQ(board.mean().fast, 0.5);
}

}  // namespace
}  // namespace tiercache
