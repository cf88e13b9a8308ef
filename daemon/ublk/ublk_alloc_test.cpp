// Heap allocations per READ and WRITE in the ublk front-end (operator new counted for this whole
// binary, every thread): none once the loop's pools are warm, for the UblkRequestExecutor alone
// and for UblkQueue's per-request path (a fetched request -> the executor -> the Device -> the
// COMMIT_AND_FETCH command queued and submitted on the loop's io_uring or the queue's own one,
// and its completion back to the queue). Without ublk_drv the kernel side is replaced: the
// descriptors live in a memfd, the test delivers each fetched request itself
// (UblkQueueTestPeer), and the commands, submitted for real, fail with EOPNOTSUPP (a memfd has
// no uring_cmd). The device is a MemoryDevice, which completes at once through the loop's pool
// and allocates nothing itself.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <future>
#include <memory>
#include <vector>

#include "cachelib/common/counting_new.h"
#include "cachelib/common/epoll_event_loop.h"
#include "cachelib/common/sim_event_loop.h"
#include "cachelib/device/memory_device.h"
#include "daemon/ublk/ublk_queue.h"
#include "daemon/ublk/ublk_queue_test_peer.h"
#include "daemon/ublk/ublk_request_executor.h"
#include "tests/support/sync_io.h"

namespace tiercache {

namespace {

constexpr uint64_t kDevSize = 1 << 20;
constexpr uint32_t kLength = 4096;
constexpr uint32_t kBufBytes = 64 * 1024;
constexpr uint32_t kDepth = 4;
constexpr int kRequests = 2000;  // measured, after as many to warm the pools

ublksrv_io_desc Desc(uint8_t op, uint64_t offset) {
  ublksrv_io_desc d{};
  d.op_flags = op;
  d.start_sector = offset >> ublk::kSectorShift;
  d.nr_sectors = kLength >> ublk::kSectorShift;
  return d;
}

class UblkExecutorAllocTest : public ::testing::Test {
 protected:
  // Operator new calls over kRequests requests of `op`, one at a time, after as many more.
  uint64_t AllocsOver(uint8_t op) {
    UblkRequestExecutor executor(mem_, kBufBytes);
    const ublksrv_io_desc desc = Desc(op, 8192);
    auto run = [&] {
      for (int i = 0; i < kRequests; ++i) {
        {
          EventLoop::ScopedCurrent scope(&loop_);
          // One pointer, as UblkQueue's (a pointer and a tag): std::function keeps it inline.
          executor.execute(desc, buf_.data(), [this](int32_t r) {
            last_result_ = r;
            ++completed_;
          });
        }
        loop_.run_until_idle();
      }
    };
    run();
    const uint64_t before = OperatorNewCalls();
    run();
    const uint64_t allocs = OperatorNewCalls() - before;
    EXPECT_EQ(completed_, 2u * kRequests);
    EXPECT_EQ(last_result_, int32_t(kLength));
    return allocs;
  }

  SimEventLoop loop_;
  MemoryDevice mem_{"mem", kDevSize, 512};
  std::vector<std::byte> buf_ = std::vector<std::byte>(kBufBytes);
  uint64_t completed_ = 0;
  int32_t last_result_ = 0;
};

TEST_F(UblkExecutorAllocTest, ReadsAllocateNothing) {
  EXPECT_EQ(AllocsOver(UBLK_IO_OP_READ), 0u);
  EXPECT_EQ(mem_.stats().reads.load(), 2u * kRequests);
}

TEST_F(UblkExecutorAllocTest, WritesAllocateNothing) {
  EXPECT_EQ(AllocsOver(UBLK_IO_OP_WRITE), 0u);
  EXPECT_EQ(mem_.stats().writes.load(), 2u * kRequests);
}

// Sits between the real commands and the queue and counts the completions, so the test thread
// knows when a round's commits have come back. Allocates nothing.
class CountingHandler final : public UblkCommands::Handler {
 public:
  void on_command_done(uint16_t tag, int32_t res) override {
    if (res == -EOPNOTSUPP) failed_as_expected.fetch_add(1, std::memory_order_relaxed);
    next->on_command_done(tag, res);
    done.fetch_add(1);
    done.notify_all();
  }
  void wait_for(uint64_t n) {
    for (uint64_t c = done.load(); c < n; c = done.load()) done.wait(c);
  }
  UblkCommands::Handler* next = nullptr;
  std::atomic<uint64_t> done{0};
  std::atomic<uint64_t> failed_as_expected{0};
};

// On a running EpollEventLoop with the queue's real commands: the loop's io_uring (false) or a
// ring of the queue's own (true).
class UblkQueueAllocTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    descs_fd_ = memfd_create("ublk-descs", MFD_CLOEXEC);
    ASSERT_GE(descs_fd_, 0) << std::strerror(errno);
    ASSERT_EQ(ftruncate(descs_fd_, sysconf(_SC_PAGESIZE)), 0);
    auto t = LoopThread::Start("ublk-alloc");
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    thread_ = std::move(t).value();
    UblkQueue::Config config{.char_fd = descs_fd_,
                             .queue_id = 0,
                             .depth = kDepth,
                             .buffer_bytes = kBufBytes,
                             .own_ring = GetParam(),
                             .make_commands = [this](EventLoop& loop,
                                                     const UblkCommands::Config& c,
                                                     UblkCommands::Handler& queue) {
                               counter_.next = &queue;
                               return UblkCommands::Create(loop, c, counter_);
                             }};
    auto q = UblkQueue::Create(mem_, thread_->loop(), config);
    ASSERT_TRUE(q.ok()) << q.status().ToString();
    queue_ = std::move(q).value();
    ASSERT_TRUE(queue_->start().ok());
    counter_.wait_for(kDepth);  // the fetches, refused by the memfd
    EXPECT_STREQ(queue_->ring_name(), GetParam() ? "own" : "loop");
  }
  void TearDown() override {
    if (queue_) {
      std::promise<void> stopped;
      queue_->stop(true, [&] { stopped.set_value(); });
      stopped.get_future().wait();
      queue_.reset();
    }
    thread_.reset();
    if (descs_fd_ >= 0) close(descs_fd_);
  }

  // Writes tag t's descriptor (`op`, at offset t * kLength) where the queue reads it.
  void SetDescriptors(uint8_t op) {
    for (uint32_t tag = 0; tag < kDepth; ++tag) {
      const ublksrv_io_desc d = Desc(op, uint64_t(tag) * kLength);
      ASSERT_EQ(pwrite(descs_fd_, &d, sizeof d, off_t(tag * sizeof d)), ssize_t(sizeof d));
    }
  }

  // One request per tag, delivered on the loop; waits until their commits, submitted for real,
  // have come back (EOPNOTSUPP from the memfd).
  void Round() {
    thread_->loop().post([this] {
      for (uint32_t tag = 0; tag < kDepth; ++tag) UblkQueueTestPeer::Receive(*queue_, tag);
    });
    completions_ += kDepth;
    counter_.wait_for(completions_);
  }

  // Operator new calls over kRequests requests of `op`, kDepth at a time, after as many more.
  uint64_t AllocsOver(uint8_t op) {
    SetDescriptors(op);
    for (int i = 0; i < kRequests / int(kDepth); ++i) Round();
    const uint64_t before = OperatorNewCalls();
    for (int i = 0; i < kRequests / int(kDepth); ++i) Round();
    const uint64_t allocs = OperatorNewCalls() - before;
    EXPECT_EQ(queue_->requests_served(), 2u * kRequests);
    // Every fetch and every request's commit reached the kernel and was answered.
    EXPECT_EQ(counter_.failed_as_expected.load(), kDepth + 2u * kRequests);
    return allocs;
  }

  MemoryDevice mem_{"mem", kDevSize, 512};
  int descs_fd_ = -1;
  std::unique_ptr<LoopThread> thread_;
  CountingHandler counter_;
  std::unique_ptr<UblkQueue> queue_;
  uint64_t completions_ = kDepth;
};

TEST_P(UblkQueueAllocTest, ReadsAllocateNothing) {
  const std::vector<std::byte> data = testing::Pattern(1, 0, kDepth * kLength);
  mem_.write_now(0, data);
  EXPECT_EQ(AllocsOver(UBLK_IO_OP_READ), 0u);
  EXPECT_EQ(mem_.stats().reads.load(), 2u * kRequests);
  for (uint32_t tag = 0; tag < kDepth; ++tag) {
    EXPECT_EQ(0, std::memcmp(UblkQueueTestPeer::Buffer(*queue_, tag), data.data() + tag * kLength,
                             kLength))
        << "tag " << tag;
  }
}

TEST_P(UblkQueueAllocTest, WritesAllocateNothing) {
  EXPECT_EQ(AllocsOver(UBLK_IO_OP_WRITE), 0u);
  EXPECT_EQ(mem_.stats().writes.load(), 2u * kRequests);
}

INSTANTIATE_TEST_SUITE_P(Rings, UblkQueueAllocTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& p) {
                           return p.param ? "OwnRing" : "LoopRing";
                         });

}  // namespace
}  // namespace tiercache
