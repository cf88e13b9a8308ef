#include "cachelib/device/aio_context.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <future>
#include <vector>

#include "cachelib/common/epoll_event_loop.h"
#include "cachelib/common/sim_event_loop.h"

namespace tiercache {
namespace {

class AioContextTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/var/tmp/tiercache-aio-XXXXXX";
    fd_ = mkstemp(tmpl);
    ASSERT_GE(fd_, 0);
    unlink(tmpl);
    std::vector<char> data(64 * 4096);
    for (size_t i = 0; i < data.size(); ++i) data[i] = char(i / 4096);
    ASSERT_EQ(pwrite(fd_, data.data(), data.size(), 0), ssize_t(data.size()));
    auto t = LoopThread::Start("aio-test");
    ASSERT_TRUE(t.ok());
    loop_ = std::move(t).value();
  }
  void TearDown() override {
    loop_.reset();
    close(fd_);
  }
  int fd_ = -1;
  std::unique_ptr<LoopThread> loop_;
};

struct Outcome {
  uint64_t submit_calls = 0;
  uint32_t in_flight_after_submit = 0;
  size_t waiting_after_submit = 0;
  uint32_t max_in_flight = 0;
  std::vector<int> order;  // indexes in completion order
};

// Submits `ops` one-block reads at once on a context of `depth`; checks each read's bytes.
Outcome ReadAll(LoopThread& loop, int fd, uint32_t depth, int ops) {
  std::vector<std::vector<char>> bufs(ops, std::vector<char>(4096));
  std::vector<long> results(ops);
  Outcome out;
  std::promise<void> all;
  std::unique_ptr<AioContext> ctx;
  loop.run_sync([&] {
    auto c = AioContext::Create(loop.loop(), depth);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    ctx = std::move(c).value();
    for (int i = 0; i < ops; ++i) {
      AioOp op;
      op.opcode = IO_CMD_PREAD;
      op.fd = fd;
      op.buf = bufs[i].data();
      op.length = 4096;
      op.offset = uint64_t(i) * 4096;
      op.done = [&, i](long res) {
        results[i] = res;
        out.order.push_back(i);
        out.max_in_flight = std::max(out.max_in_flight, ctx->in_flight() + 1);
        if (int(out.order.size()) == ops) all.set_value();
      };
      ctx->submit(std::move(op));
    }
    out.in_flight_after_submit = ctx->in_flight();
    out.waiting_after_submit = ctx->waiting();
  });
  all.get_future().wait();
  for (int i = 0; i < ops; ++i) {
    EXPECT_EQ(results[i], 4096);
    EXPECT_EQ(bufs[i], std::vector<char>(4096, char(i)));
  }
  loop.run_sync([&] {
    out.submit_calls = ctx->submit_calls();
    EXPECT_EQ(ctx->in_flight(), 0u);
    ctx->unwatch();
    ctx.reset();
  });
  return out;
}

TEST_F(AioContextTest, BoundsRequestsInTheKernel) {
  Outcome o = ReadAll(*loop_, fd_, 4, 20);
  EXPECT_EQ(o.in_flight_after_submit, 4u);
  EXPECT_EQ(o.waiting_after_submit, 16u);
  EXPECT_LE(o.max_in_flight, 4u);
  EXPECT_EQ(o.order.size(), 20u);
}

TEST_F(AioContextTest, RequestsOfOneRoundGoToTheKernelInOneSubmit) {
  Outcome o = ReadAll(*loop_, fd_, 32, 20);
  EXPECT_EQ(o.in_flight_after_submit, 20u);
  EXPECT_EQ(o.waiting_after_submit, 0u);
  EXPECT_EQ(o.submit_calls, 1u);
}

TEST_F(AioContextTest, WaitingRequestsStartInFifoOrder) {
  Outcome o = ReadAll(*loop_, fd_, 1, 12);  // one at a time: completion order is start order
  std::vector<int> want(12);
  for (int i = 0; i < 12; ++i) want[i] = i;
  EXPECT_EQ(o.order, want);
  EXPECT_EQ(o.waiting_after_submit, 11u);
}

TEST_F(AioContextTest, RefusedSubmissionCompletesLaterWithErrno) {
  std::promise<long> result;
  std::unique_ptr<AioContext> ctx;
  bool inline_call = false;
  bool returned = false;
  loop_->run_sync([&] {
    auto c = AioContext::Create(loop_->loop(), 2);
    ASSERT_TRUE(c.ok());
    ctx = std::move(c).value();
    AioOp op;
    op.opcode = IO_CMD_PREAD;
    op.fd = -1;  // io_submit refuses it with EBADF
    static char buf[512];
    op.buf = buf;
    op.length = sizeof buf;
    op.done = [&](long res) {
      inline_call = !returned;
      result.set_value(res);
    };
    ctx->submit(std::move(op));
    returned = true;
  });
  EXPECT_EQ(result.get_future().get(), -EBADF);
  EXPECT_FALSE(inline_call);
  loop_->run_sync([&] {
    ctx->unwatch();
    ctx.reset();
  });
}

// A refused operation in the middle of a batch fails alone; those after it still run, and
// waiting operations take its place.
TEST_F(AioContextTest, RefusedOperationInABatchFailsAloneAndTheRestRun) {
  constexpr int kOps = 6;
  constexpr int kBad = 2;
  std::vector<std::vector<char>> bufs(kOps, std::vector<char>(4096));
  std::vector<long> results(kOps, 1);
  int done_count = 0;
  std::promise<void> all;
  std::unique_ptr<AioContext> ctx;
  loop_->run_sync([&] {
    auto c = AioContext::Create(loop_->loop(), 4);  // two of the six wait
    ASSERT_TRUE(c.ok());
    ctx = std::move(c).value();
    for (int i = 0; i < kOps; ++i) {
      AioOp op;
      op.opcode = IO_CMD_PREAD;
      op.fd = i == kBad ? -1 : fd_;
      op.buf = bufs[i].data();
      op.length = 4096;
      op.offset = uint64_t(i) * 4096;
      op.done = [&, i](long res) {
        results[i] = res;
        if (++done_count == kOps) all.set_value();
      };
      ctx->submit(std::move(op));
    }
  });
  all.get_future().wait();
  for (int i = 0; i < kOps; ++i) {
    if (i == kBad) {
      EXPECT_EQ(results[i], -EBADF);
    } else {
      EXPECT_EQ(results[i], 4096) << i;
      EXPECT_EQ(bufs[i], std::vector<char>(4096, char(i))) << i;
    }
  }
  loop_->run_sync([&] {
    EXPECT_EQ(ctx->in_flight(), 0u);
    EXPECT_EQ(ctx->waiting(), 0u);
    ctx->unwatch();
    ctx.reset();
  });
}

TEST(AioContextSimTest, LoopWithoutFdsIsNotSupported) {
  SimEventLoop sim;
  EventLoop::ScopedCurrent scope(&sim);
  auto c = AioContext::Create(sim, 4);
  EXPECT_EQ(c.status().code(), Status::Code::kNotSupported);
}

}  // namespace
}  // namespace tiercache
