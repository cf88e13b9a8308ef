// AioContext and UringContext through their IoQueue interface: the same tests on both backends.
#include "cachelib/device/io_queue.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/fs.h>
#include <unistd.h>

#include <cerrno>
#include <functional>
#include <future>
#include <vector>

#include "cachelib/common/epoll_event_loop.h"
#include "cachelib/common/sim_event_loop.h"
#include "cachelib/device/aio_context.h"
#include "cachelib/device/loop_ring.h"
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
  // Runs `ops` on `q` at once (one loop task), then `after_submit` in that task; returns their
  // results in submission order. No callback may run inside that task (never inline).
  std::vector<long> RunAll(IoQueue& q, std::vector<IoOp> ops, std::vector<int>* order = nullptr,
                           const std::function<void()>& after_submit = {}) {
    std::vector<long> results(ops.size(), 1);
    size_t left = ops.size();
    std::promise<void> all;
    bool submitted = false;
    loop_->run_sync([&] {
      for (size_t i = 0; i < ops.size(); ++i) {
        ops[i].done = [&, i](long res) {
          EXPECT_TRUE(submitted) << "operation " << i << " completed inline";
          results[i] = res;
          if (order) order->push_back(int(i));
          if (--left == 0) all.set_value();
        };
        q.submit(std::move(ops[i]));
      }
      if (after_submit) after_submit();
      submitted = true;
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

// Block read by the i-th operation of ReadAll: every other block, so that no two operations
// continue each other (they would merge).
int SpreadBlock(int i) { return (2 * i) % kBlocks; }

// Submits `ops` one-block reads at once on a queue of `depth`; checks each read's bytes.
// `per_round`: the loop's ring submits once per round (LoopRing::submit_each() off).
Outcome ReadAll(LoopThread& loop, Backend backend, int fd, uint32_t depth, int ops,
                bool per_round = false) {
  std::vector<std::vector<char>> bufs(ops, std::vector<char>(4096));
  std::vector<long> results(ops);
  Outcome out;
  std::promise<void> all;
  std::unique_ptr<IoQueue> q;
  loop.run_sync([&] {
    std::shared_ptr<LoopRing> ring;  // until the queue holds it too
    if (per_round && backend == Backend::kUring) {
      auto r = LoopRing::ForLoop(loop.loop());
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      ring = std::move(r).value();
      ring->set_submit_each(false);
    }
    auto c = MakeQueue(backend, loop.loop(), depth, fd);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    q = std::move(c).value();
    for (int i = 0; i < ops; ++i) {
      IoOp op = Read(fd, bufs[i].data(), 4096, uint64_t(SpreadBlock(i)) * 4096);
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
    EXPECT_EQ(bufs[i], std::vector<char>(4096, char(SpreadBlock(i)))) << i;
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
  EXPECT_EQ(o.counters.merged, 0u);
}

TEST_P(IoQueueTest, RequestsOfOneRoundGoToTheKernelInOneSubmit) {
  Outcome o = ReadAll(*loop_, GetParam(), fd_, 32, 20, /*per_round=*/true);
  EXPECT_EQ(o.in_flight_after_submit, 20u);
  EXPECT_EQ(o.waiting_after_submit, 0u);
  EXPECT_EQ(o.counters.submit_calls, 1u);
  EXPECT_EQ(o.counters.rounds, 1u);
  EXPECT_EQ(o.counters.ops, 20u);
  EXPECT_EQ(o.counters.in_flight_sum, 20u);  // mean queue depth 20
}

// The loop's ring by default hands each operation to the kernel when the next is prepared (the
// last with the loop's sleep): one io_uring_enter per request, still one round of the queue.
// libaio has no such mode: one io_submit.
TEST_P(IoQueueTest, OnTheRingEachRequestOfARoundIsSubmittedOnItsOwn) {
  Outcome o = ReadAll(*loop_, GetParam(), fd_, 32, 20);
  EXPECT_EQ(o.in_flight_after_submit, 20u);
  EXPECT_EQ(o.counters.submit_calls, GetParam() == Backend::kUring ? 20u : 1u);
  EXPECT_EQ(o.counters.rounds, 1u);
  EXPECT_EQ(o.counters.ops, 20u);
  EXPECT_EQ(o.counters.in_flight_sum, 20u);
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

// io_uring with more operations in one round than the loop ring's submission queue holds
// (LoopRing::kSqEntries): the round refills it, one io_uring_enter per full queue.
TEST_P(IoQueueTest, RoundLargerThanTheSubmissionQueue) {
  constexpr int kOps = 5000;
  Outcome o = ReadAll(*loop_, GetParam(), fd_, kOps, kOps, /*per_round=*/true);
  EXPECT_EQ(o.in_flight_after_submit, uint32_t(kOps));
  EXPECT_EQ(o.counters.rounds, 1u);
  EXPECT_EQ(o.counters.ops, uint64_t(kOps));
  // Not in_flight_sum: the first submission's page-cache reads may be reaped before the round ends.
  constexpr uint64_t kEnters = (kOps + LoopRing::kSqEntries - 1) / LoopRing::kSqEntries;
  EXPECT_EQ(o.counters.submit_calls, GetParam() == Backend::kUring ? kEnters : 1u);
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
    // Every other block: contiguous reads would merge.
    ops.push_back(Read(i == kBad ? -1 : fd_, bufs[i].data(), 4096, uint64_t(2 * i) * 4096));
  }
  std::vector<long> results = RunAll(*q, std::move(ops));
  for (int i = 0; i < kOps; ++i) {
    if (i == kBad) {
      EXPECT_EQ(results[i], -EBADF);
    } else {
      EXPECT_EQ(results[i], 4096) << i;
      EXPECT_EQ(bufs[i], std::vector<char>(4096, char(2 * i))) << i;
    }
  }
  EXPECT_EQ(q->counters().merged, 0u);
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

// --- Merging: contiguous reads or writes of one round become one kernel operation -------------

// One block of the file as SetUp wrote it.
std::vector<char> Block(int b) { return std::vector<char>(4096, char(b)); }

// Eight reads of blocks 4..11 into separate buffers: one vectored read, each part its bytes.
TEST_P(IoQueueTest, ContiguousReadsOfOneRoundBecomeOneVectoredRead) {
  auto q = Make(8, fd_);
  std::vector<std::vector<char>> bufs(8, std::vector<char>(4096));
  std::vector<IoOp> ops;
  for (int i = 0; i < 8; ++i) ops.push_back(Read(fd_, bufs[i].data(), 4096, (4 + i) * 4096));
  uint32_t in_flight = 0;
  std::vector<int> order;
  auto results = RunAll(*q, std::move(ops), &order, [&] { in_flight = q->in_flight(); });
  EXPECT_EQ(results, std::vector<long>(8, 4096));
  for (int i = 0; i < 8; ++i) EXPECT_EQ(bufs[i], Block(4 + i)) << i;
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));  // fanned out in file order
  EXPECT_EQ(in_flight, 1u);
  const IoQueueCounters c = q->counters();
  EXPECT_EQ(c.ops, 1u);
  EXPECT_EQ(c.merged, 7u);
  EXPECT_EQ(c.submit_calls, 1u);
  Destroy(std::move(q));
}

// Slices of one buffer: one plain read of the whole range.
TEST_P(IoQueueTest, ContiguousBuffersMergeIntoOnePlainRead) {
  auto q = Make(8, fd_);
  std::vector<char> buf(4 * 4096);
  std::vector<IoOp> ops;
  for (int i = 0; i < 4; ++i) ops.push_back(Read(fd_, buf.data() + i * 4096, 4096, (30 + i) * 4096));
  EXPECT_EQ(RunAll(*q, std::move(ops)), std::vector<long>(4, 4096));
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(std::vector<char>(buf.begin() + i * 4096, buf.begin() + (i + 1) * 4096), Block(30 + i));
  }
  EXPECT_EQ(q->counters().ops, 1u);
  EXPECT_EQ(q->counters().merged, 3u);
  Destroy(std::move(q));
}

// Only an operation continuing the round's last one merges: reads 0, 1 (joins 0), 3 (gap), 2
// (before 3), 3 again through another fd, a datasync, then 4 (after the datasync): five operations.
TEST_P(IoQueueTest, OnlyTheRoundsLastOperationIsContinued) {
  auto q = Make(16, fd_);
  const int other = dup(fd_);
  ASSERT_GE(other, 0);
  std::vector<std::vector<char>> bufs(6, std::vector<char>(4096));
  std::vector<IoOp> ops;
  const int blocks[] = {0, 1, 3, 2, 3, 4};
  for (int i = 0; i < 6; ++i) {
    ops.push_back(Read(i == 4 ? other : fd_, bufs[i].data(), 4096, blocks[i] * 4096));
  }
  IoOp sync;
  sync.kind = IoOp::Kind::kDatasync;
  sync.fd = fd_;
  ops.insert(ops.begin() + 5, std::move(sync));
  auto results = RunAll(*q, std::move(ops));
  EXPECT_EQ(results, (std::vector<long>{4096, 4096, 4096, 4096, 4096, 0, 4096}));
  for (int i = 0; i < 6; ++i) EXPECT_EQ(bufs[i], Block(blocks[i])) << i;
  EXPECT_EQ(q->counters().ops, 6u);
  EXPECT_EQ(q->counters().merged, 1u);
  close(other);
  Destroy(std::move(q));
}

// A full queue does not stop a continuation (it takes no kernel operation), and waiting
// operations merge when they start: depth 1, reads 10, 11 (joins), 20 (waits), 21 and 22 (wait
// behind it, FIFO), then 20..22 start as one.
TEST_P(IoQueueTest, FullQueueStillMergesAndWaitingOperationsMergeWhenStarted) {
  auto q = Make(1, fd_);
  std::vector<std::vector<char>> bufs(5, std::vector<char>(4096));
  const int blocks[] = {10, 11, 20, 21, 22};
  std::vector<IoOp> ops;
  for (int i = 0; i < 5; ++i) ops.push_back(Read(fd_, bufs[i].data(), 4096, blocks[i] * 4096));
  uint32_t in_flight = 0;
  size_t waiting = 0;
  auto results = RunAll(*q, std::move(ops), nullptr, [&] {
    in_flight = q->in_flight();
    waiting = q->waiting();
  });
  EXPECT_EQ(results, std::vector<long>(5, 4096));
  for (int i = 0; i < 5; ++i) EXPECT_EQ(bufs[i], Block(blocks[i])) << i;
  EXPECT_EQ(in_flight, 1u);
  EXPECT_EQ(waiting, 3u);
  EXPECT_EQ(q->counters().ops, 2u);
  EXPECT_EQ(q->counters().merged, 3u);
  EXPECT_EQ(q->counters().rounds, 2u);
  Destroy(std::move(q));
}

// Writes merge too (same rw_flags), byte-exact on the file.
TEST_P(IoQueueTest, ContiguousWritesMergeAndReadBack) {
  auto q = Make(8, fd_);
  std::vector<std::vector<char>> data;
  std::vector<IoOp> ops;
  for (int i = 0; i < 4; ++i) {
    data.emplace_back(4096, char('a' + i));
    IoOp w = Read(fd_, data[i].data(), 4096, (40 + i) * 4096);
    w.kind = IoOp::Kind::kWrite;
    w.rw_flags = RWF_DSYNC;
    ops.push_back(std::move(w));
  }
  EXPECT_EQ(RunAll(*q, std::move(ops)), std::vector<long>(4, 4096));
  EXPECT_EQ(q->counters().ops, 1u);
  EXPECT_EQ(q->counters().merged, 3u);
  std::vector<char> back(4 * 4096);
  ASSERT_EQ(pread(fd_, back.data(), back.size(), 40 * 4096), ssize_t(back.size()));
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(std::vector<char>(back.begin() + i * 4096, back.begin() + (i + 1) * 4096), data[i]);
  }
  Destroy(std::move(q));
}

// A merged read cut short by the end of the file (64 blocks): blocks 62 and 63 get theirs, 64
// and 65 are submitted again (as one: 64 gets the 0 it would get alone, 65 alone again).
TEST_P(IoQueueTest, ShortMergedReadCompletesTheReachedPartsAndRetriesTheRest) {
  auto q = Make(8, fd_);
  std::vector<std::vector<char>> bufs(4, std::vector<char>(4096));
  std::vector<IoOp> ops;
  for (int i = 0; i < 4; ++i) ops.push_back(Read(fd_, bufs[i].data(), 4096, (62 + i) * 4096));
  EXPECT_EQ(RunAll(*q, std::move(ops)), (std::vector<long>{4096, 4096, 0, 0}));
  EXPECT_EQ(bufs[0], Block(62));
  EXPECT_EQ(bufs[1], Block(63));
  EXPECT_EQ(q->counters().ops, 3u);
  EXPECT_EQ(q->counters().merged, 4u);
  Destroy(std::move(q));
}

// A merged operation that fails gives every part the error, never inline (RunAll checks): reads
// on a write-only fd (libaio refuses it at io_submit, io_uring in the completion).
TEST_P(IoQueueTest, FailedMergedOperationFailsEveryPart) {
  auto q = Make(8);
  const int wronly = open("/dev/null", O_WRONLY | O_CLOEXEC);
  ASSERT_GE(wronly, 0);
  std::vector<std::vector<char>> bufs(3, std::vector<char>(4096));
  std::vector<IoOp> ops;
  for (int i = 0; i < 3; ++i) ops.push_back(Read(wronly, bufs[i].data(), 4096, i * 4096));
  EXPECT_EQ(RunAll(*q, std::move(ops)), std::vector<long>(3, -EBADF));
  EXPECT_EQ(q->counters().merged, 2u);
  close(wronly);
  Destroy(std::move(q));
}

// Limits: 300 contiguous 512-byte reads make operations of 256 and 44 parts; eight contiguous
// 256 KiB reads (past the end of the 64 blocks: a hole reads zeroes) two of 1 MiB.
TEST_P(IoQueueTest, MergedOperationsStopAtTheirPartAndByteLimits) {
  ASSERT_EQ(ftruncate(fd_, 4 << 20), 0);
  auto q = Make(8, fd_);
  std::vector<char> small(300 * 512);
  std::vector<IoOp> ops;
  for (int i = 0; i < 300; ++i) ops.push_back(Read(fd_, small.data() + i * 512, 512, i * 512));
  EXPECT_EQ(RunAll(*q, std::move(ops)), std::vector<long>(300, 512));
  EXPECT_EQ(q->counters().ops, 2u);
  EXPECT_EQ(q->counters().merged, 298u);
  std::vector<char> want(300 * 512);
  ASSERT_EQ(pread(fd_, want.data(), want.size(), 0), ssize_t(want.size()));
  EXPECT_EQ(small, want);
  std::vector<std::vector<char>> big(8, std::vector<char>(256 << 10, 'x'));
  ops.clear();
  for (int i = 0; i < 8; ++i) {
    ops.push_back(Read(fd_, big[i].data(), 256 << 10, (1 << 20) + i * (256 << 10)));
  }
  EXPECT_EQ(RunAll(*q, std::move(ops)), std::vector<long>(8, 256 << 10));
  EXPECT_EQ(q->counters().ops, 4u);
  EXPECT_EQ(q->counters().merged, 304u);
  for (auto& b : big) EXPECT_EQ(b, std::vector<char>(256 << 10, 0));
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
