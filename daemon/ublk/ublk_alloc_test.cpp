// Heap allocations per READ and WRITE in the ublk front-end (operator new counted for this whole
// binary): none once the loop's pools are warm, for the UblkRequestExecutor alone and for
// UblkQueue's per-request path (a fetched request -> the executor -> the Device -> the
// COMMIT_AND_FETCH command queued and submitted on the queue's io_uring). Without ublk_drv the
// kernel side is replaced: the descriptors live in a memfd, the test delivers each fetched request
// itself (UblkQueueTestPeer), and the commits, submitted for real, fail with EOPNOTSUPP (a memfd
// has no uring_cmd) and are reaped by the test. The device is a MemoryDevice, which completes at
// once through the loop's pool and allocates nothing itself.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "cachelib/common/counting_new.h"
#include "cachelib/common/sim_event_loop.h"
#include "cachelib/device/memory_device.h"
#include "daemon/ublk/ublk_queue.h"
#include "daemon/ublk/ublk_request_executor.h"
#include "tests/support/sync_io.h"

namespace tiercache {

// Reaches UblkQueue's per-request path without /dev/ublkcN (a friend of UblkQueue).
class UblkQueueTestPeer {
 public:
  // What the queue does when the kernel completes a fetch with a request for `tag`.
  static void Receive(UblkQueue& q, uint32_t tag) { q.on_cqe(tag, UBLK_IO_RES_OK); }
  static io_uring& Ring(UblkQueue& q) { return q.ring_; }
  static const std::byte* Buffer(const UblkQueue& q, uint32_t tag) { return q.buffer(tag); }
};

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

class UblkQueueAllocTest : public ::testing::Test {
 protected:
  void SetUp() override {
    descs_fd_ = memfd_create("ublk-descs", MFD_CLOEXEC);
    ASSERT_GE(descs_fd_, 0) << std::strerror(errno);
    ASSERT_EQ(ftruncate(descs_fd_, sysconf(_SC_PAGESIZE)), 0);
    UblkQueue::Config config{
        .char_fd = descs_fd_, .queue_id = 0, .depth = kDepth, .buffer_bytes = kBufBytes};
    auto q = UblkQueue::Create(mem_, loop_, config);
    ASSERT_TRUE(q.ok()) << q.status().ToString();
    queue_ = std::move(q).value();
  }
  void TearDown() override {
    queue_.reset();
    if (descs_fd_ >= 0) close(descs_fd_);
  }

  // Writes tag t's descriptor (`op`, at offset t * kLength) where the queue reads it.
  void SetDescriptors(uint8_t op) {
    for (uint32_t tag = 0; tag < kDepth; ++tag) {
      const ublksrv_io_desc d = Desc(op, uint64_t(tag) * kLength);
      ASSERT_EQ(pwrite(descs_fd_, &d, sizeof d, off_t(tag * sizeof d)), ssize_t(sizeof d));
    }
  }

  // One request per tag, then the loop runs until the commits are submitted; reaps their
  // completions (EOPNOTSUPP from the memfd), counting those of the expected tags.
  void Round() {
    for (uint32_t tag = 0; tag < kDepth; ++tag) {
      EventLoop::ScopedCurrent scope(&loop_);
      UblkQueueTestPeer::Receive(*queue_, tag);
    }
    loop_.run_until_idle();
    io_uring& ring = UblkQueueTestPeer::Ring(*queue_);
    io_uring_cqe* cqe;
    unsigned head, seen = 0;
    io_uring_for_each_cqe(&ring, head, cqe) {
      ++seen;
      if (cqe->user_data == commits_ % kDepth && cqe->res == -EOPNOTSUPP) ++commits_;
    }
    io_uring_cq_advance(&ring, seen);
  }

  // Operator new calls over kRequests requests of `op`, kDepth at a time, after as many more.
  uint64_t AllocsOver(uint8_t op) {
    SetDescriptors(op);
    for (int i = 0; i < kRequests / int(kDepth); ++i) Round();
    const uint64_t before = OperatorNewCalls();
    for (int i = 0; i < kRequests / int(kDepth); ++i) Round();
    const uint64_t allocs = OperatorNewCalls() - before;
    EXPECT_EQ(queue_->requests_served(), 2u * kRequests);
    EXPECT_EQ(commits_, 2u * kRequests);  // each request's commit, in tag order
    return allocs;
  }

  SimEventLoop loop_;
  MemoryDevice mem_{"mem", kDevSize, 512};
  int descs_fd_ = -1;
  std::unique_ptr<UblkQueue> queue_;
  uint64_t commits_ = 0;
};

TEST_F(UblkQueueAllocTest, ReadsAllocateNothing) {
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

TEST_F(UblkQueueAllocTest, WritesAllocateNothing) {
  EXPECT_EQ(AllocsOver(UBLK_IO_OP_WRITE), 0u);
  EXPECT_EQ(mem_.stats().writes.load(), 2u * kRequests);
}

}  // namespace
}  // namespace tiercache
