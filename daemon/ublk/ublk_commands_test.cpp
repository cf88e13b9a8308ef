// UblkCommands: the exact entry a ublk I/O command becomes, and both implementations on real
// rings with a memfd standing in for /dev/ublkcN (it has no uring_cmd: each command completes
// with EOPNOTSUPP, which also shows the ring took IORING_OP_URING_CMD in a 64-byte entry).
#include "daemon/ublk/ublk_commands.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "cachelib/common/epoll_event_loop.h"
#include "cachelib/device/loop_ring.h"

namespace tiercache {
namespace {

TEST(PrepareUblkCommandTest, FillsTheUringCmdEntryAndZeroesTheRest) {
  io_uring_sqe sqe;
  std::memset(&sqe, 0xab, sizeof sqe);  // leftovers of an earlier operation
  PrepareUblkCommand(&sqe, 17,
                     UblkCommand{.op = ublk::kIoCommitAndFetchReq,
                                 .queue_id = 2,
                                 .tag = 61,
                                 .result = -5,
                                 .addr = 0x7f0012345000});
  io_uring_sqe want;
  std::memset(&want, 0, sizeof want);
  want.opcode = IORING_OP_URING_CMD;
  want.fd = 17;
  want.cmd_op = _IOWR('u', UBLK_IO_COMMIT_AND_FETCH_REQ, ublksrv_io_cmd);
  const ublksrv_io_cmd io{.q_id = 2, .tag = 61, .result = -5, .addr = 0x7f0012345000};
  std::memcpy(want.cmd, &io, sizeof io);
  EXPECT_EQ(0, std::memcmp(&sqe, &want, sizeof sqe));
  EXPECT_EQ(sqe.flags, 0);      // no IOSQE_ASYNC: the command must leave from the loop's thread
  EXPECT_EQ(sqe.user_data, 0u);  // the caller's
}

// Counts completions and keeps them, for the test thread to wait on.
class Recorder final : public UblkCommands::Handler {
 public:
  void on_command_done(uint16_t tag, int32_t res) override {
    seen.emplace_back(tag, res);
    count.fetch_add(1);
    count.notify_all();
  }
  void wait_for(uint32_t n) {
    for (uint32_t c = count.load(); c < n; c = count.load()) count.wait(c);
  }
  std::vector<std::pair<uint16_t, int32_t>> seen;  // loop thread
  std::atomic<uint32_t> count{0};
};

class UblkCommandsTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    fd_ = memfd_create("ublkc", MFD_CLOEXEC);
    ASSERT_GE(fd_, 0) << std::strerror(errno);
    auto t = LoopThread::Start("ublk-cmd-test");
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    thread_ = std::move(t).value();
  }
  void TearDown() override {
    thread_.reset();
    close(fd_);
  }
  int fd_ = -1;
  std::unique_ptr<LoopThread> thread_;
};

// Three commands of one round reach the kernel and come back with their tags; the loop's ring
// counts them as its own operations, an own ring leaves the loop without one.
TEST_P(UblkCommandsTest, CommandsComeBackToTheHandlerWithTheirTags) {
  const bool own = GetParam();
  Recorder recorder;
  std::unique_ptr<UblkCommands> commands;
  uint64_t loop_sqes_before = 0;
  thread_->run_sync([&] {
    auto c = UblkCommands::Create(thread_->loop(),
                                  {.char_fd = fd_, .queue_id = 1, .depth = 8, .own_ring = own},
                                  recorder);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    commands = std::move(c).value();
    if (auto ring = LoopRing::Existing(thread_->loop())) loop_sqes_before = ring->counters().sqes;
    for (uint16_t tag : {5, 0, 7}) {
      commands->queue({.op = ublk::kIoFetchReq, .queue_id = 1, .tag = tag, .result = -1});
    }
  });
  recorder.wait_for(3);
  thread_->run_sync([&] {
    EXPECT_STREQ(commands->ring_name(), own ? "own" : "loop");
    EXPECT_EQ(commands->end_cancels(), own);
    EXPECT_EQ(recorder.seen, (std::vector<std::pair<uint16_t, int32_t>>{
                                 {5, -EOPNOTSUPP}, {0, -EOPNOTSUPP}, {7, -EOPNOTSUPP}}));
    auto ring = LoopRing::Existing(thread_->loop());
    if (own) {
      EXPECT_EQ(ring, nullptr);
    } else {
      ASSERT_NE(ring, nullptr);
      EXPECT_EQ(ring->counters().sqes, loop_sqes_before + 3);
    }
    ring.reset();
    commands->end();
    commands.reset();
    // Gone with its last user: the commands let go of the loop's ring on the loop.
    EXPECT_EQ(LoopRing::Existing(thread_->loop()), nullptr);
  });
}

INSTANTIATE_TEST_SUITE_P(Rings, UblkCommandsTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& p) {
                           return p.param ? "OwnRing" : "LoopRing";
                         });

}  // namespace
}  // namespace tiercache
