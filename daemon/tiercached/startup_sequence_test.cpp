#include "daemon/tiercached/startup_sequence.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tiercache {
namespace {

// Steps that log "do NAME" / "undo NAME"; the step named `failing` fails.
class StartupSequenceTest : public ::testing::Test {
 protected:
  void Add(const std::string& name, const std::string& failing = "", bool with_undo = true) {
    StartupSequence::Undo undo;
    if (with_undo) undo = [this, name] { log_.push_back("undo " + name); };
    sequence_.add(
        name,
        [this, name, failing] {
          log_.push_back("do " + name);
          return name == failing ? Status::Busy(name + " is taken") : Status::Ok();
        },
        std::move(undo));
  }

  StartupSequence sequence_;
  std::vector<std::string> log_;
};

TEST_F(StartupSequenceTest, RunsInOrderAndUnwindsInReverse) {
  for (const char* name : {"lock", "event loop", "open cache"}) Add(name);
  ASSERT_TRUE(sequence_.start().ok());
  EXPECT_EQ(sequence_.done(), 3u);
  EXPECT_EQ(sequence_.failed_step(), "");
  sequence_.unwind();
  EXPECT_EQ(log_, (std::vector<std::string>{"do lock", "do event loop", "do open cache",
                                            "undo open cache", "undo event loop", "undo lock"}));
  EXPECT_EQ(sequence_.done(), 0u);
  sequence_.unwind();  // nothing left: no second undo
  EXPECT_EQ(log_.size(), 6u);
}

TEST_F(StartupSequenceTest, FailureInTheMiddleUndoesTheStepsBeforeIt) {
  Add("lock");
  Add("run directory", "", /*with_undo=*/false);
  Add("event loop");
  Add("open cache", /*failing=*/"open cache");
  Add("NBD server");
  Status s = sequence_.start();
  EXPECT_EQ(s.ToString(), "Busy: open cache is taken");
  EXPECT_EQ(sequence_.failed_step(), "open cache");
  EXPECT_EQ(sequence_.done(), 0u);
  // The failed step is not undone (it did nothing to undo); later steps never ran.
  EXPECT_EQ(log_, (std::vector<std::string>{"do lock", "do run directory", "do event loop",
                                            "do open cache", "undo event loop", "undo lock"}));
}

TEST_F(StartupSequenceTest, FailureOfTheFirstStepUndoesNothing) {
  Add("lock", "lock");
  Add("event loop");
  EXPECT_EQ(sequence_.start().ToString(), "Busy: lock is taken");
  EXPECT_EQ(sequence_.failed_step(), "lock");
  EXPECT_EQ(log_, (std::vector<std::string>{"do lock"}));
}

TEST_F(StartupSequenceTest, StepsAddedAfterAStartRunOnTheNext) {
  Add("lock");
  ASSERT_TRUE(sequence_.start().ok());
  Add("ready");
  ASSERT_TRUE(sequence_.start().ok());
  sequence_.unwind();
  EXPECT_EQ(log_,
            (std::vector<std::string>{"do lock", "do ready", "undo ready", "undo lock"}));
}

}  // namespace
}  // namespace tiercache
