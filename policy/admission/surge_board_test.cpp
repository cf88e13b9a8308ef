#include "policy/admission/surge_board.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

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

TEST(SurgeBoardTest, EvidenceAddsUpNeverGoesBelowZeroAndClears) {
  SurgeBoard board(4);
  EXPECT_EQ(board.evidence(), 0.0);
  EXPECT_EQ(board.add_evidence(5), 5.0);
  EXPECT_EQ(board.add_evidence(-7), 0.0);
  EXPECT_EQ(board.add_evidence(3), 3.0);
  EXPECT_EQ(board.evidence(), 3.0);
  board.clear_evidence();
  EXPECT_EQ(board.evidence(), 0.0);
}

// Every shard adds to the same evidence under its own lock: no addition is lost.
TEST(SurgeBoardTest, ConcurrentEvidenceIsNotLost) {
  SurgeBoard board(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&board] {
      for (int i = 0; i < 10000; ++i) board.add_evidence(1.0);
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(board.evidence(), 40000.0);
}

}  // namespace
}  // namespace tiercache
