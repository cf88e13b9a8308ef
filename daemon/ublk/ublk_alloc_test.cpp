// Heap allocations per READ and WRITE in the ublk front-end (operator new counted for this whole
// binary, every thread): none once the loop's pools are warm, for the UblkRequestExecutor alone
// and for UblkQueue's per-request path (a fetched request -> the executor -> the Device -> the
// COMMIT_AND_FETCH command queued and submitted on the loop's io_uring or the queue's own one,
// and its completion back to the queue). Without ublk_drv the kernel side is replaced: the
// descriptors live in a memfd, the test delivers each fetched request itself
// (UblkQueueHarness), and the commands, submitted for real, fail with EOPNOTSUPP (a memfd has
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
#include "daemon/ublk/ublk_queue_harness.h"
#include "daemon/ublk/ublk_request_executor.h"
#include "tests/support/sync_io.h"

namespace tiercache {

namespace {

constexpr uint64_t kDevSize = 1 << 20;
constexpr uint32_t kLength = 4096;
constexpr uint32_t kBufBytes = 64 * 1024;
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

// On a running EpollEventLoop with the queue's real commands: the loop's io_uring (false) or a
// ring of the queue's own (true).
class UblkQueueAllocTest : public ::testing::TestWithParam<bool> {
 protected:
  using H = UblkQueueHarness;
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(h_.Start(mem_, GetParam()));
    EXPECT_STREQ(h_.queue().ring_name(), GetParam() ? "own" : "loop");
  }

  // Operator new calls over kRequests requests of `op`, kDepth at a time (tag t at offset
  // t * kLength), after as many more.
  uint64_t AllocsOver(uint8_t op) {
    for (uint32_t tag = 0; tag < H::kDepth; ++tag) {
      h_.SetDescriptor(tag, op, uint64_t(tag) * H::kLength);
    }
    for (int i = 0; i < kRequests / int(H::kDepth); ++i) h_.Receive(0, H::kDepth);
    const uint64_t before = OperatorNewCalls();
    for (int i = 0; i < kRequests / int(H::kDepth); ++i) h_.Receive(0, H::kDepth);
    const uint64_t allocs = OperatorNewCalls() - before;
    EXPECT_EQ(h_.queue().requests_served(), 2u * kRequests);
    // Every fetch and every request's commit reached the kernel and was answered.
    EXPECT_EQ(h_.refused(), H::kDepth + 2u * kRequests);
    return allocs;
  }

  MemoryDevice mem_{"mem", kDevSize, 512};
  UblkQueueHarness h_;  // (destroyed first: the queue stops before the device goes)
};

TEST_P(UblkQueueAllocTest, ReadsAllocateNothing) {
  const std::vector<std::byte> data = testing::Pattern(1, 0, H::kDepth * H::kLength);
  mem_.write_now(0, data);
  EXPECT_EQ(AllocsOver(UBLK_IO_OP_READ), 0u);
  EXPECT_EQ(mem_.stats().reads.load(), 2u * kRequests);
  for (uint32_t tag = 0; tag < H::kDepth; ++tag) {
    EXPECT_EQ(0, std::memcmp(h_.buffer(tag), data.data() + tag * H::kLength, H::kLength))
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
