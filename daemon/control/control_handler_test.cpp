#include "daemon/control/control_handler.h"

#include <gtest/gtest.h>

#include "cachelib/common/sim_event_loop.h"
#include "daemon/control/testing/fake_control_target.h"

namespace tiercache {
namespace {

using testing::FakeControlTarget;

// The handler on a SimEventLoop: progress throttling in virtual time.
class ControlHandlerTest : public ::testing::Test {
 protected:
  void SetUp() override { target_.set_completion(FakeControlTarget::Completion::kHeld); }
  ControlHandler::Emit collect() {
    return [this](const ControlJson& response, bool final) {
      lines_.push_back(response.dump() + (final ? " [final]" : ""));
    };
  }
  ControlRequest flush() {
    ControlRequest r;
    r.command = ControlCommand::kFlush;
    return r;
  }

  SimEventLoop loop_;
  FakeControlTarget target_;
  std::vector<std::string> lines_;
};

TEST_F(ControlHandlerTest, ProgressIsThrottledAndDeduplicated) {
  ControlHandler handler(loop_, target_, std::chrono::milliseconds(100));
  handler.execute(flush(), collect());
  target_.send_progress(10);
  loop_.run_until_idle();
  target_.send_progress(9);  // within 100 ms of the last line: dropped
  loop_.run_until_idle();
  loop_.run_for(std::chrono::milliseconds(100));
  target_.send_progress(8);
  loop_.run_until_idle();
  loop_.run_for(std::chrono::milliseconds(500));
  target_.send_progress(8);  // unchanged: dropped
  loop_.run_until_idle();
  target_.release(Status::Ok());
  loop_.run_until_idle();
  EXPECT_EQ(lines_, (std::vector<std::string>{R"({"progress":{"dirty_lines":10}})",
                                              R"({"progress":{"dirty_lines":8}})",
                                              R"({"ok":true,"dirty_lines":0} [final])"}));
}

TEST_F(ControlHandlerTest, CallbacksAreDeliveredOnTheLoopNeverInline) {
  ControlHandler handler(loop_, target_, Nanos(0));
  ControlRequest mode;
  mode.command = ControlCommand::kMode;
  mode.mode = CacheMode::kWriteAround;
  target_.set_completion(FakeControlTarget::Completion::kInline);
  handler.execute(mode, collect());
  EXPECT_TRUE(lines_.empty());  // the target completed inline; the reply waits for the loop
  loop_.run_until_idle();
  EXPECT_EQ(lines_, (std::vector<std::string>{
                        R"({"ok":true,"mode":"wa","previous_mode":"wt"} [final])"}));
}

TEST_F(ControlHandlerTest, CallbacksAfterTheHandlerIsGoneAreDropped) {
  auto handler = std::make_unique<ControlHandler>(loop_, target_, Nanos(0));
  handler->execute(flush(), collect());
  handler.reset();
  target_.send_progress(4);
  target_.release(Status::Ok());
  loop_.run_until_idle();
  EXPECT_TRUE(lines_.empty());
}

}  // namespace
}  // namespace tiercache
