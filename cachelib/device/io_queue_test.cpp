// AioContext and UringContext through their IoQueue interface: the same tests on both backends.
#include "cachelib/device/io_queue.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/fs.h>
#include <unistd.h>

#include <cerrno>
#include <future>
#include <vector>

#include "cachelib/common/epoll_event_loop.h"
#include "cachelib/common/sim_event_loop.h"
#include "cachelib/device/aio_context.h"
#include "cachelib/device/uring_context.h"

namespace tiercache {
namespace {

constexpr int kBlocks = 64;

enum class Backend { kAio, kUring };

// `registered` is the fd io_uring registers (ignored by libaio).
Result<std::unique_ptr<IoQueue>> MakeQueue(Backend b, EventLoop& loop, uint32_t depth,
                                           int registered = -1) {
  if (b == Backend::kAio) {
    auto q = AioContext::Create(loop, depth);
    if (!q.ok()) return q.status();
    return std::unique_ptr<IoQueue>(std::move(q).value());
  }
  auto q = UringContext::Create(loop, depth, registered);
  if (!q.ok()) return q.status();
  return std::unique_ptr<IoQueue>(std::move(q).value());
}

class IoQueueTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    char tmpl[] = "/var/tmp/tiercache-ioq-XXXXXX";
    fd_ = mkstemp(tmpl);
    ASSERT_GE(fd_, 0);
    unlink(tmpl);
    std::vector<char> data(kBlocks * 4096);
    for (size_t i = 0; i < data.size(); ++i) data[i] = char(i / 4096);
    ASSERT_EQ(pwrite(fd_, data.data(), data.size(), 0), ssize_t(data.size()));
    auto t = LoopThread::Start("ioq-test");
    ASSERT_TRUE(t.ok());
    loop_ = std::move(t).value();
  }
  void TearDown() override {
    loop_.reset();
    close(fd_);
  }
  // Creates the queue on the loop thread.
  std::unique_ptr<IoQueue> Make(uint32_t depth, int registered = -1) {
    std::unique_ptr<IoQueue> q;
    loop_->run_sync([&] {
      auto c = MakeQueue(GetParam(), loop_->loop(), depth, registered);
      ASSERT_TRUE(c.ok()) << c.status().ToString();
      q = std::move(c).value();
    });
    return q;
  }
  // Runs `ops` on `q` at once (one loop task); returns their results in submission order.
  std::vector<long> RunAll(IoQueue& q, std::vector<IoOp> ops, std::vector<int>* order = nullptr) {
    std::vector<long> results(ops.size(), 1);
    size_t left = ops.size();
    std::promise<void> all;
    loop_->run_sync([&] {
      for (size_t i = 0; i < ops.size(); ++i) {
        ops[i].done = [&, i](long res) {
          results[i] = res;
          if (order) order->push_back(int(i));
          if (--left == 0) all.set_value();
        };
        q.submit(std::move(ops[i]));
      }
    });
    all.get_future().wait();
    return results;
  }
  void Destroy(std::unique_ptr<IoQueue> q) {
    loop_->run_sync([&] {
      EXPECT_EQ(q->in_flight(), 0u);
      EXPECT_EQ(q->waiting(), 0u);
      q->unwatch();
      q.reset();
    });
  }
  int fd_ = -1;
  std::unique_ptr<LoopThread> loop_;
};

IoOp Read(int fd, void* buf, size_t len, uint64_t off) {
  IoOp op;
  op.kind = IoOp::Kind::kRead;
  op.fd = fd;
  op.buf = buf;
  op.length = len;
  op.offset = off;
  return op;
}

struct Outcome {
  IoQueueCounters counters;
  uint32_t in_flight_after_submit = 0;
  size_t waiting_after_submit = 0;
  uint32_t max_in_flight = 0;
  std::vector<int> order;  // indexes in completion order
};

// Submits `ops` one-block reads at once on a queue of `depth`; checks each read's bytes.
Outcome ReadAll(LoopThread& loop, Backend backend, int fd, uint32_t depth, int ops) {
  std::vector<std::vector<char>> bufs(ops, std::vector<char>(4096));
  std::vector<long> results(ops);
  Outcome out;
  std::promise<void> all;
  std::unique_ptr<IoQueue> q;
  loop.run_sync([&] {
    auto c = MakeQueue(backend, loop.loop(), depth, fd);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    q = std::move(c).value();
    for (int i = 0; i < ops; ++i) {
      IoOp op = Read(fd, bufs[i].data(), 4096, uint64_t(i % kBlocks) * 4096);
      op.done = [&, i](long res) {
        results[i] = res;
        out.order.push_back(i);
        out.max_in_flight = std::max(out.max_in_flight, q->in_flight() + 1);
        if (int(out.order.size()) == ops) all.set_value();
      };
      q->submit(std::move(op));
    }
    out.in_flight_after_submit = q->in_flight();
    out.waiting_after_submit = q->waiting();
  });
  all.get_future().wait();
  for (int i = 0; i < ops; ++i) {
    EXPECT_EQ(results[i], 4096);
    EXPECT_EQ(bufs[i], std::vector<char>(4096, char(i % kBlocks))) << i;
  }
  loop.run_sync([&] {
    out.counters = q->counters();
    EXPECT_EQ(q->in_flight(), 0u);
    q->unwatch();
    q.reset();
  });
  return out;
}

TEST_P(IoQueueTest, BoundsRequestsInTheKernel) {
  Outcome o = ReadAll(*loop_, GetParam(), fd_, 4, 20);
  EXPECT_EQ(o.in_flight_after_submit, 4u);
  EXPECT_EQ(o.waiting_after_submit, 16u);
  EXPECT_LE(o.max_in_flight, 4u);
  EXPECT_EQ(o.order.size(), 20u);
  EXPECT_EQ(o.counters.ops, 20u);
}

TEST_P(IoQueueTest, RequestsOfOneRoundGoToTheKernelInOneSubmit) {
  Outcome o = ReadAll(*loop_, GetParam(), fd_, 32, 20);
  EXPECT_EQ(o.in_flight_after_submit, 20u);
  EXPECT_EQ(o.waiting_after_submit, 0u);
  EXPECT_EQ(o.counters.submit_calls, 1u);
  EXPECT_EQ(o.counters.rounds, 1u);
  EXPECT_EQ(o.counters.ops, 20u);
  EXPECT_EQ(o.counters.in_flight_sum, 20u);  // mean queue depth 20
}

TEST_P(IoQueueTest, WaitingRequestsStartInFifoOrder) {
  Outcome o = ReadAll(*loop_, GetParam(), fd_, 1, 12);  // one at a time: completion = start order
  std::vector<int> want(12);
  for (int i = 0; i < 12; ++i) want[i] = i;
  EXPECT_EQ(o.order, want);
  EXPECT_EQ(o.waiting_after_submit, 11u);
  // Each completion starts the next in a round of its own: 12 rounds of depth 1.
  EXPECT_EQ(o.counters.rounds, 12u);
  EXPECT_EQ(o.counters.submit_calls, 12u);
  EXPECT_EQ(o.counters.in_flight_sum, 12u);
}

// io_uring with more operations in one round than its submission queue holds (4096 entries):
// the round refills it with a second io_uring_enter.
TEST_P(IoQueueTest, RoundLargerThanTheSubmissionQueue) {
  constexpr int kOps = 5000;
  Outcome o = ReadAll(*loop_, GetParam(), fd_, kOps, kOps);
  EXPECT_EQ(o.in_flight_after_submit, uint32_t(kOps));
  EXPECT_EQ(o.counters.rounds, 1u);
  EXPECT_EQ(o.counters.ops, uint64_t(kOps));
  // Not in_flight_sum: the first submission's page-cache reads may be reaped before the round ends.
  EXPECT_EQ(o.counters.submit_calls, GetParam() == Backend::kUring ? 2u : 1u);
}

TEST_P(IoQueueTest, BadFdCompletesLaterWithEbadf) {
  auto q = Make(2);
  std::promise<long> result;
  bool inline_call = false;
  bool returned = false;
  static char buf[512];
  loop_->run_sync([&] {
    IoOp op = Read(-1, buf, sizeof buf, 0);  // refused: by io_submit, or in the CQE
    op.done = [&](long res) {
      inline_call = !returned;
      result.set_value(res);
    };
    q->submit(std::move(op));
    returned = true;
  });
  EXPECT_EQ(result.get_future().get(), -EBADF);
  EXPECT_FALSE(inline_call);
  Destroy(std::move(q));
}

// A refused operation in the middle of a batch fails alone; those after it still run, and
// waiting operations take its place.
TEST_P(IoQueueTest, RefusedOperationInABatchFailsAloneAndTheRestRun) {
  constexpr int kOps = 6;
  constexpr int kBad = 2;
  auto q = Make(4, fd_);  // two of the six wait
  std::vector<std::vector<char>> bufs(kOps, std::vector<char>(4096));
  std::vector<IoOp> ops;
  for (int i = 0; i < kOps; ++i) {
    ops.push_back(Read(i == kBad ? -1 : fd_, bufs[i].data(), 4096, uint64_t(i) * 4096));
  }
  std::vector<long> results = RunAll(*q, std::move(ops));
  for (int i = 0; i < kOps; ++i) {
    if (i == kBad) {
      EXPECT_EQ(results[i], -EBADF);
    } else {
      EXPECT_EQ(results[i], 4096) << i;
      EXPECT_EQ(bufs[i], std::vector<char>(4096, char(i))) << i;
    }
  }
  Destroy(std::move(q));
}

TEST_P(IoQueueTest, WriteWithDsyncThenDatasyncThenReadBack) {
  auto q = Make(8, fd_);
  std::vector<char> data(2 * 4096, 'w'), back(3 * 4096, 0);
  IoOp write = Read(fd_, data.data(), data.size(), 10 * 4096);
  write.kind = IoOp::Kind::kWrite;
  write.rw_flags = RWF_DSYNC;
  EXPECT_EQ(RunAll(*q, [&] { std::vector<IoOp> v; v.push_back(std::move(write)); return v; }()),
            std::vector<long>{long(data.size())});
  IoOp sync;
  sync.kind = IoOp::Kind::kDatasync;
  sync.fd = fd_;
  std::vector<IoOp> v;
  v.push_back(std::move(sync));
  v.push_back(Read(fd_, back.data(), back.size(), 10 * 4096));
  EXPECT_EQ(RunAll(*q, std::move(v)), (std::vector<long>{0, long(back.size())}));
  std::vector<char> want(3 * 4096, 'w');
  std::fill(want.begin() + 2 * 4096, want.end(), char(12));  // block 12 as SetUp wrote it
  EXPECT_EQ(back, want);
  Destroy(std::move(q));
}

TEST_P(IoQueueTest, ReadAtTheEndOfTheFileReturnsZeroAndAShortRead) {
  auto q = Make(4, fd_);
  std::vector<char> a(2 * 4096), b(4096);
  std::vector<IoOp> v;
  v.push_back(Read(fd_, a.data(), a.size(), (kBlocks - 1) * 4096));  // one block left
  v.push_back(Read(fd_, b.data(), b.size(), kBlocks * 4096));         // none
  EXPECT_EQ(RunAll(*q, std::move(v)), (std::vector<long>{4096, 0}));
  Destroy(std::move(q));
}

TEST_P(IoQueueTest, UnsupportedFlagsFailWithEopnotsupp) {
  auto q = Make(4, fd_);
  std::vector<char> buf(4096);
  IoOp op = Read(fd_, buf.data(), buf.size(), 0);
  op.rw_flags = 0x40000000;  // no such RWF_ flag
  std::vector<IoOp> v;
  v.push_back(std::move(op));
  EXPECT_EQ(RunAll(*q, std::move(v)), std::vector<long>{-EOPNOTSUPP});
  Destroy(std::move(q));
}

TEST_P(IoQueueTest, LoopWithoutFdsIsNotSupported) {
  SimEventLoop sim;
  EventLoop::ScopedCurrent scope(&sim);
  auto c = MakeQueue(GetParam(), sim, 4);
  EXPECT_EQ(c.status().code(), Status::Code::kNotSupported);
}

INSTANTIATE_TEST_SUITE_P(Backends, IoQueueTest, ::testing::Values(Backend::kAio, Backend::kUring),
                         [](const auto& info) {
                           return std::string(info.param == Backend::kAio ? "libaio" : "io_uring");
                         });

TEST(UringContextTest, RegistersTheDeviceFile) {
  auto t = LoopThread::Start("uring-test");
  ASSERT_TRUE(t.ok());
  int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  (*t)->run_sync([&] {
    auto registered = UringContext::Create((*t)->loop(), 4, fd);
    auto plain = UringContext::Create((*t)->loop(), 4);
    ASSERT_TRUE(registered.ok() && plain.ok());
    EXPECT_TRUE((*registered)->file_registered());
    EXPECT_FALSE((*plain)->file_registered());
    (*registered)->unwatch();
    (*plain)->unwatch();
  });
  close(fd);
}

}  // namespace
}  // namespace tiercache
