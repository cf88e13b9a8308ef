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

PolicyOptions Named(const char* admission, const char* replacement) {
  PolicyOptions p;
  p.admission = admission;
  p.replacement = replacement;
  return p;
}

ControlRequest Parsed(std::string_view line) {
  Result<ControlRequest> r = ParseControlRequest(line);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : ControlRequest{};
}

// `policy` without fields reports; with fields it changes only those, over the ones in force,
// and answers the new and previous policies; a refusal is an error reply and changes nothing.
TEST_F(ControlHandlerTest, PolicyQueryChangeAndRefusal) {
  ControlStatus status;
  status.policies = Named("always", "lru");
  target_.set_status(status);
  target_.set_completion(FakeControlTarget::Completion::kInline);
  ControlHandler handler(loop_, target_, Nanos(0));
  handler.execute(Parsed(R"({"cmd":"policy"})"), collect());
  handler.execute(Parsed(R"({"cmd":"policy","replacement":"clock"})"), collect());
  loop_.run_until_idle();
  target_.set_result(Status::InvalidArgument("unknown admission policy 'x'"));
  handler.execute(Parsed(R"({"cmd":"policy","admission":"x"})"), collect());
  loop_.run_until_idle();
  const std::string seq =
      R"("sequential":{"enabled":true,"read_cutoff_bytes":4194304,"write_cutoff_bytes":4194304,)"
      R"("streams":64})";
  EXPECT_EQ(lines_, (std::vector<std::string>{
                        R"({"ok":true,"policies":{"admission":"always","replacement":"lru",)" +
                            seq + "}} [final]",
                        R"({"ok":true,"policies":{"admission":"always","replacement":"clock",)" +
                            seq + R"(},"previous_policies":{"admission":"always",)" +
                            R"("replacement":"lru",)" + seq + "}} [final]",
                        R"({"ok":false,"error":"unknown admission policy 'x'",)"
                        R"("code":"InvalidArgument"} [final])"}));
  auto calls = target_.policy_calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0], Named("always", "clock"));
  EXPECT_EQ(calls[1], Named("x", "clock"));
  EXPECT_EQ(target_.policies(), Named("always", "clock"));
}

}  // namespace
}  // namespace tiercache
