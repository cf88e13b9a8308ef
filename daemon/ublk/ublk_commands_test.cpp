// UblkCommands: the exact entry a ublk I/O command becomes, and both implementations on real
// rings with a memfd standing in for /dev/ublkcN (it has no uring_cmd: each command completes
// with EOPNOTSUPP, which also shows the ring took IORING_OP_URING_CMD in a 64-byte entry); on
// the loop's ring, the char device in its file table (IOSQE_FIXED_FILE) or, refused, its fd.
#include "daemon/ublk/ublk_commands.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <cerrno>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "cachelib/common/epoll_event_loop.h"
#include "cachelib/device/loop_ring.h"
#include "daemon/ublk/ublk_loop_ring_commands.h"

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

// A loop thread and a memfd standing in for /dev/ublkcN.
class CommandsFixture : public ::testing::Test {
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

class UblkCommandsTest : public CommandsFixture, public ::testing::WithParamInterface<bool> {};

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

// The loop's ring with the char device in its file table, or the table refused (full).
class LoopRingFileTest : public CommandsFixture {
 protected:
  // On the loop: the commands on `char_fd` (the ring created first, its table filled when
  // `table_full`), then `body`; then the commands end and the table is emptied again.
  void With(int char_fd, bool table_full, const std::function<void()>& body) {
    thread_->run_sync([&] {
      auto r = LoopRing::ForLoop(thread_->loop());
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      ring_ = std::move(r).value();
      while (table_full) {
        const int slot = ring_->register_file(fd_);
        if (slot < 0) break;
        taken_.push_back(slot);
      }
      auto c = UblkLoopRingCommands::Create(
          thread_->loop(), {.char_fd = char_fd, .queue_id = 1, .depth = 8}, recorder_);
      ASSERT_TRUE(c.ok()) << c.status().ToString();
      commands_ = std::move(c).value();
    });
    body();
    thread_->run_sync([&] {
      commands_->end();
      commands_.reset();
      for (int slot : taken_) ring_->unregister_file(slot);
      taken_.clear();
      ring_.reset();
    });
  }
  io_uring_sqe Prepared(const UblkCommand& cmd) {
    io_uring_sqe sqe;
    std::memset(&sqe, 0xab, sizeof sqe);
    thread_->run_sync([&] { commands_->prepare(&sqe, cmd); });
    return sqe;
  }
  // Queues fetches for tags 0 and 1 and waits for their completions.
  void FetchTwo() {
    thread_->run_sync([&] {
      for (uint16_t tag : {0, 1}) {
        commands_->queue({.op = ublk::kIoFetchReq, .queue_id = 1, .tag = tag, .result = -1});
      }
    });
    recorder_.wait_for(2);
  }

  static constexpr UblkCommand kCommit{.op = ublk::kIoCommitAndFetchReq,
                                       .queue_id = 1,
                                       .tag = 5,
                                       .result = 4096,
                                       .addr = 0x7f0000010000};
  Recorder recorder_;
  std::shared_ptr<LoopRing> ring_;
  std::unique_ptr<UblkLoopRingCommands> commands_;
  std::vector<int> taken_;
};

// Registered: the entry names slot 0 of the fresh ring's table with IOSQE_FIXED_FILE, and is
// otherwise PrepareUblkCommand's; the slot is emptied by end(), and not before.
TEST_F(LoopRingFileTest, TheCharDeviceIsNamedByItsFileTableSlot) {
  With(fd_, false, [&] {
    EXPECT_TRUE(commands_->file_registered());
    io_uring_sqe want;
    PrepareUblkCommand(&want, 0, kCommit);
    want.flags = IOSQE_FIXED_FILE;
    const io_uring_sqe got = Prepared(kCommit);
    EXPECT_EQ(got.fd, 0);
    EXPECT_EQ(got.flags, IOSQE_FIXED_FILE);
    EXPECT_EQ(0, std::memcmp(&got, &want, sizeof got));
    thread_->run_sync([&] {
      const int next = ring_->register_file(fd_);
      EXPECT_EQ(next, 1);  // slot 0 is the char device's
      ring_->unregister_file(next);
      commands_->end();
      EXPECT_EQ(ring_->register_file(fd_), 0);  // end() gave it back
      ring_->unregister_file(0);
    });
  });
}

TEST_F(LoopRingFileTest, AFullFileTableLeavesTheCommandsOnTheFd) {
  With(fd_, true, [&] {
    EXPECT_FALSE(commands_->file_registered());
    EXPECT_FALSE(taken_.empty());
    io_uring_sqe want;
    PrepareUblkCommand(&want, fd_, kCommit);
    const io_uring_sqe got = Prepared(kCommit);
    EXPECT_EQ(got.fd, fd_);
    EXPECT_EQ(got.flags, 0);
    EXPECT_EQ(0, std::memcmp(&got, &want, sizeof got));
  });
}

// The kernel takes the file from the table: with its fd closed, the commands still reach the
// memfd (EOPNOTSUPP). Refused, the same commands name a closed fd (EBADF).
TEST_F(LoopRingFileTest, TheKernelTakesTheFileFromTheTable) {
  for (bool table_full : {false, true}) {
    recorder_.seen.clear();
    recorder_.count = 0;
    const int dup_fd = dup(fd_);
    ASSERT_GE(dup_fd, 0);
    With(dup_fd, table_full, [&] {
      close(dup_fd);
      FetchTwo();
      const int32_t res = table_full ? -EBADF : -EOPNOTSUPP;
      thread_->run_sync([&] {
        EXPECT_EQ(recorder_.seen, (std::vector<std::pair<uint16_t, int32_t>>{{0, res}, {1, res}}))
            << (table_full ? "plain fd" : "registered");
      });
    });
  }
}

}  // namespace
}  // namespace tiercache
