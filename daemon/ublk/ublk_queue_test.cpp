// UblkQueue's command sequence, against fake UblkCommands on a SimEventLoop (no ublk_drv): a
// FETCH_REQ per tag at start, one COMMIT_AND_FETCH_REQ with each request's result, and how stop
// ends: at once on an own ring (closing it cancels), after every fetch's UBLK_IO_RES_ABORT on
// the loop's ring, at once when STOP_DEV failed. Then the tags' buffers in a real loop ring's
// buffer table (the commands still fakes): registered from start until the queue ends, and
// unregistered before the commands let go of the ring and before the memory goes. A memfd
// stands in for /dev/ublkcN's descriptor array.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#include "cachelib/common/epoll_event_loop.h"
#include "cachelib/common/sim_event_loop.h"
#include "cachelib/device/loop_ring.h"
#include "cachelib/device/memory_device.h"
#include "daemon/ublk/ublk_queue.h"
#include "daemon/ublk/ublk_queue_test_peer.h"
#include "tests/support/sync_io.h"

namespace tiercache {

bool operator==(const UblkCommand& a, const UblkCommand& b) {
  return a.op == b.op && a.queue_id == b.queue_id && a.tag == b.tag && a.result == b.result &&
         a.addr == b.addr;
}

namespace {

constexpr uint16_t kQueueId = 3;
constexpr uint32_t kDepth = 4;
constexpr uint32_t kBufBytes = 64 * 1024;
constexpr uint32_t kLength = 4096;

// Records what the queue asks of the kernel; the test plays the kernel's answers. With a ring,
// the queue registers its buffers there; end() lets go of it (on the loop, as it runs).
class FakeCommands final : public UblkCommands {
 public:
  FakeCommands(Handler& handler, bool end_cancels, std::shared_ptr<LoopRing> ring = nullptr)
      : handler_(handler), end_cancels_(end_cancels), ring_(std::move(ring)) {}
  const char* ring_name() const override { return "fake"; }
  LoopRing* loop_ring() const override { return ring_.get(); }
  void queue(const UblkCommand& cmd) override {
    EXPECT_FALSE(ended) << "a command after end()";
    queued.push_back(cmd);
  }
  Status submit() override {
    ++submits;
    return Status::Ok();
  }
  bool end_cancels() const override { return end_cancels_; }
  void end() override {
    ended = true;
    if (on_end) on_end();
    ring_.reset();
  }
  void complete(uint16_t tag, int32_t res) { handler_.on_command_done(tag, res); }

  std::vector<UblkCommand> queued;
  int submits = 0;
  bool ended = false;
  std::function<void()> on_end;

 private:
  Handler& handler_;
  const bool end_cancels_;
  std::shared_ptr<LoopRing> ring_;
};

// A memfd the size of queue kQueueId's descriptors at their offset (UblkQueue::map_memory),
// or -1; `stride` is the per-queue offset.
int OpenDescriptors(size_t& stride) {
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  stride = (ublk::kMaxQueueDepth * sizeof(ublksrv_io_desc) + page - 1) / page * page;
  const int fd = memfd_create("ublk-descs", MFD_CLOEXEC);
  if (fd >= 0 && ftruncate(fd, off_t(stride * (kQueueId + 1))) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// Writes tag's descriptor: `op` on kLength bytes at `offset`.
void WriteDescriptor(int fd, size_t stride, uint32_t tag, uint8_t op, uint64_t offset) {
  ublksrv_io_desc d{};
  d.op_flags = op;
  d.start_sector = offset >> ublk::kSectorShift;
  d.nr_sectors = kLength >> ublk::kSectorShift;
  const off_t at = off_t(stride * kQueueId + tag * sizeof d);
  ASSERT_EQ(pwrite(fd, &d, sizeof d, at), ssize_t(sizeof d));
}

class UblkQueueTest : public ::testing::Test {
 protected:
  // A queue over `mem_` whose commands are a FakeCommands, begun: the fetches are queued.
  void Begin(bool end_cancels) {
    descs_fd_ = OpenDescriptors(stride_);
    ASSERT_GE(descs_fd_, 0) << std::strerror(errno);
    UblkQueue::Config config{.char_fd = descs_fd_,
                             .queue_id = kQueueId,
                             .depth = kDepth,
                             .buffer_bytes = kBufBytes,
                             .own_ring = true,
                             .make_commands = [this, end_cancels](
                                                  EventLoop& loop,
                                                  const UblkCommands::Config& c,
                                                  UblkCommands::Handler& h) {
                               EXPECT_EQ(&loop, &loop_);
                               seen_config_ = c;
                               auto fake = std::make_unique<FakeCommands>(h, end_cancels);
                               fake_ = fake.get();
                               return Result<std::unique_ptr<UblkCommands>>(std::move(fake));
                             }};
    auto q = UblkQueue::Create(mem_, loop_, config);
    ASSERT_TRUE(q.ok()) << q.status().ToString();
    queue_ = std::move(q).value();
    EventLoop::ScopedCurrent scope(&loop_);
    ASSERT_TRUE(UblkQueueTestPeer::Begin(*queue_).ok());
  }
  void TearDown() override {
    if (queue_ && !stopped_) Stop(false);
    queue_.reset();
    if (descs_fd_ >= 0) close(descs_fd_);
  }

  void SetDescriptor(uint32_t tag, uint8_t op, uint64_t offset) {
    WriteDescriptor(descs_fd_, stride_, tag, op, offset);
  }
  // The kernel answers tag's command with `res`; the loop then runs what that started.
  void Kernel(uint16_t tag, int32_t res) {
    {
      EventLoop::ScopedCurrent scope(&loop_);
      fake_->complete(tag, res);
    }
    loop_.run_until_idle();
  }
  void Stop(bool kernel_stopped) {
    queue_->stop(kernel_stopped, [this] { stopped_ = true; });
    loop_.run_until_idle();
  }
  uint64_t Addr(uint32_t tag) const {
    return reinterpret_cast<uintptr_t>(UblkQueueTestPeer::Buffer(*queue_, tag));
  }
  UblkCommand Fetch(uint16_t tag) const {
    return {ublk::kIoFetchReq, kQueueId, tag, -1, Addr(tag)};
  }
  UblkCommand Commit(uint16_t tag, int32_t result) const {
    return {ublk::kIoCommitAndFetchReq, kQueueId, tag, result, Addr(tag)};
  }
  std::vector<UblkCommand> Fetches() const {
    std::vector<UblkCommand> v;
    for (uint16_t t = 0; t < kDepth; ++t) v.push_back(Fetch(t));
    return v;
  }

  SimEventLoop loop_;
  MemoryDevice mem_{"mem", 1 << 20, 512};
  int descs_fd_ = -1;
  size_t stride_ = 0;
  std::unique_ptr<UblkQueue> queue_;
  FakeCommands* fake_ = nullptr;
  UblkCommands::Config seen_config_;
  bool stopped_ = false;
};

TEST_F(UblkQueueTest, StartFetchesEveryTagInOneSubmit) {
  Begin(false);
  EXPECT_EQ(seen_config_.char_fd, descs_fd_);
  EXPECT_EQ(seen_config_.queue_id, kQueueId);
  EXPECT_EQ(seen_config_.depth, kDepth);
  EXPECT_TRUE(seen_config_.own_ring);
  EXPECT_STREQ(queue_->ring_name(), "fake");
  EXPECT_EQ(fake_->queued, Fetches());
  EXPECT_EQ(fake_->submits, 1);
  EXPECT_EQ(Addr(1) - Addr(0), kBufBytes);
}

TEST_F(UblkQueueTest, AReadIsCommittedWithItsByteCountAndData) {
  Begin(false);
  const std::vector<std::byte> data = testing::Pattern(7, 0, kLength);
  mem_.write_now(8192, data);
  SetDescriptor(2, UBLK_IO_OP_READ, 8192);
  Kernel(2, UBLK_IO_RES_OK);
  std::vector<UblkCommand> want = Fetches();
  want.push_back(Commit(2, int32_t(kLength)));
  EXPECT_EQ(fake_->queued, want);
  EXPECT_EQ(0, std::memcmp(UblkQueueTestPeer::Buffer(*queue_, 2), data.data(), kLength));
  EXPECT_EQ(queue_->requests_served(), 1u);
  EXPECT_EQ(fake_->submits, 1);  // the commit leaves with the round: the commands' business
}

TEST_F(UblkQueueTest, AWriteTakesTheTagsBufferAndAFailureCommitsANegativeErrno) {
  Begin(false);
  SetDescriptor(1, UBLK_IO_OP_WRITE, 4096);
  std::byte* buf = const_cast<std::byte*>(UblkQueueTestPeer::Buffer(*queue_, 1));
  const std::vector<std::byte> data = testing::Pattern(9, 4096, kLength);
  std::memcpy(buf, data.data(), kLength);
  Kernel(1, UBLK_IO_RES_OK);
  SetDescriptor(3, UBLK_IO_OP_READ, (1 << 20) - 512);  // runs past the device's end
  Kernel(3, UBLK_IO_RES_OK);
  std::vector<UblkCommand> want = Fetches();
  want.push_back(Commit(1, int32_t(kLength)));
  want.push_back(Commit(3, -EINVAL));
  EXPECT_EQ(fake_->queued, want);
  std::vector<std::byte> stored(kLength);
  mem_.read_now(4096, stored);
  EXPECT_EQ(stored, data);
  EXPECT_EQ(queue_->requests_served(), 2u);
}

// A second answer for a tag that has no command in the kernel is not a request.
TEST_F(UblkQueueTest, AnAnswerWithoutACommandIsIgnored) {
  Begin(false);
  SetDescriptor(0, UBLK_IO_OP_FLUSH, 0);
  Kernel(0, UBLK_IO_RES_OK);
  Kernel(0, -EINVAL);  // the commit refused: tag 0 is finished
  Kernel(0, UBLK_IO_RES_OK);
  EXPECT_EQ(queue_->requests_served(), 1u);
  EXPECT_EQ(fake_->queued.size(), kDepth + 1);
}

// The loop's ring outlives the queue: after STOP_DEV the queue ends only once the kernel has
// answered every fetch with UBLK_IO_RES_ABORT (a refused command counts as answered).
TEST_F(UblkQueueTest, OnTheLoopsRingStopWaitsForEveryFetchsAbort) {
  Begin(false);
  Kernel(1, -EINVAL);
  Stop(true);
  EXPECT_FALSE(stopped_);
  for (uint16_t tag : {0, 3}) {
    Kernel(tag, UBLK_IO_RES_ABORT);
    EXPECT_FALSE(stopped_ || fake_->ended) << "after tag " << tag;
  }
  Kernel(2, UBLK_IO_RES_ABORT);
  EXPECT_TRUE(stopped_);
  EXPECT_TRUE(fake_->ended);
  EXPECT_EQ(fake_->queued, Fetches());
}

// A request in flight at stop is committed first, and its re-armed fetch then answered.
TEST_F(UblkQueueTest, StopCommitsTheRequestInFlightThenWaitsForItsAbort) {
  Begin(false);
  SetDescriptor(2, UBLK_IO_OP_READ, 0);
  {
    EventLoop::ScopedCurrent scope(&loop_);
    fake_->complete(2, UBLK_IO_RES_OK);  // the read completes in a later loop task
  }
  Stop(true);
  std::vector<UblkCommand> want = Fetches();
  want.push_back(Commit(2, int32_t(kLength)));
  EXPECT_EQ(fake_->queued, want);
  for (uint16_t tag = 0; tag < kDepth; ++tag) Kernel(tag, UBLK_IO_RES_ABORT);
  EXPECT_TRUE(stopped_);
  EXPECT_TRUE(fake_->ended);
}

TEST_F(UblkQueueTest, AnOwnRingEndsAtOnceItsCloseCancelsTheFetches) {
  Begin(true);
  Stop(true);
  EXPECT_TRUE(stopped_);
  EXPECT_TRUE(fake_->ended);
}

// STOP_DEV failed (or a start is undone): no ABORT is coming, so nothing is waited for.
TEST_F(UblkQueueTest, WithoutAKernelStopTheLoopsRingEndsAtOnce) {
  Begin(false);
  Stop(false);
  EXPECT_TRUE(stopped_);
  EXPECT_TRUE(fake_->ended);
}

// The same queue on a running EpollEventLoop whose ring the fake commands hand over: the
// tags' buffers as one region of its buffer table.
class UblkQueueBuffersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    descs_fd_ = OpenDescriptors(stride_);
    ASSERT_GE(descs_fd_, 0) << std::strerror(errno);
    auto t = LoopThread::Start("ublk-buffers");
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    thread_ = std::move(t).value();
  }
  void TearDown() override {
    if (queue_ && !stopped_) Stop(false);
    queue_.reset();
    thread_->run_sync([&] {
      for (int index : taken_) ring_->unregister_buffer(index);
      ring_.reset();
    });
    thread_.reset();
    if (filler_ != nullptr) munmap(filler_, kFillerBytes);
    close(descs_fd_);
  }

  // Starts the queue; with `table_full`, every slot of the ring's buffer table is taken first.
  void Start(bool table_full) {
    UblkQueue::Config config{
        .char_fd = descs_fd_,
        .queue_id = kQueueId,
        .depth = kDepth,
        .buffer_bytes = kBufBytes,
        .make_commands = [this, table_full](EventLoop& loop, const UblkCommands::Config&,
                                            UblkCommands::Handler& h) {
          auto ring = LoopRing::ForLoop(loop);
          EXPECT_TRUE(ring.ok()) << ring.status().ToString();
          ring_ = std::move(ring).value();
          if (table_full) FillTable();
          auto fake = std::make_unique<FakeCommands>(h, false, ring_);
          fake->on_end = [this] { registered_at_end_ = ring_->find_buffer(Buffer(0), kAll); };
          fake_ = fake.get();
          return Result<std::unique_ptr<UblkCommands>>(std::move(fake));
        }};
    auto q = UblkQueue::Create(mem_, thread_->loop(), config);
    ASSERT_TRUE(q.ok()) << q.status().ToString();
    queue_ = std::move(q).value();
    ASSERT_TRUE(queue_->start().ok());
  }
  // One page per slot, until the table refuses.
  void FillTable() {
    void* p = mmap(nullptr, kFillerBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    ASSERT_NE(p, MAP_FAILED);
    filler_ = static_cast<std::byte*>(p);
    for (size_t page = 0; page < kFillerBytes / 4096; ++page) {
      const int index = ring_->register_buffer(filler_ + page * 4096, 4096);
      if (index < 0) break;
      taken_.push_back(index);
    }
  }
  // The index of the region holding every tag's buffer, or -1.
  int Registered() {
    int index = -1;
    thread_->run_sync([&] { index = ring_->find_buffer(Buffer(0), kAll); });
    return index;
  }
  std::byte* Buffer(uint32_t tag) const {
    return const_cast<std::byte*>(UblkQueueTestPeer::Buffer(*queue_, tag));
  }
  // The kernel answers tag's command; then the loop runs what that started.
  void Kernel(uint16_t tag, int32_t res) {
    thread_->run_sync([&] { fake_->complete(tag, res); });
    thread_->run_sync([] {});
  }
  void Stop(bool kernel_stopped) {
    queue_->stop(kernel_stopped, [this] { stopped_ = true; });
    thread_->run_sync([] {});
  }
  // Whether [p, p + bytes) is still mapped (msync fails with ENOMEM on unmapped pages).
  static bool Mapped(const void* p, size_t bytes) {
    return msync(const_cast<void*>(p), bytes, MS_ASYNC) == 0;
  }

  static constexpr size_t kAll = size_t(kDepth) * kBufBytes;
  static constexpr size_t kFillerBytes = 128 * 4096;
  MemoryDevice mem_{"mem", 1 << 20, 512};
  int descs_fd_ = -1;
  size_t stride_ = 0;
  std::unique_ptr<LoopThread> thread_;
  std::shared_ptr<LoopRing> ring_;  // loop thread
  std::unique_ptr<UblkQueue> queue_;
  FakeCommands* fake_ = nullptr;
  std::atomic<bool> stopped_{false};
  int registered_at_end_ = 0;  // find_buffer() when the commands ended
  std::byte* filler_ = nullptr;
  std::vector<int> taken_;
};

// Registered at start; still registered while fetches are in the kernel after STOP_DEV (the
// queue waits for their aborts); gone by the time the commands end, and the memory then goes.
TEST_F(UblkQueueBuffersTest, OneRegionFromStartUntilTheLastAbortComesBack) {
  Start(false);
  EXPECT_TRUE(queue_->fixed_buffers());
  EXPECT_FALSE(queue_->fixed_file());  // the fake commands name no file table slot
  const int index = Registered();
  EXPECT_GE(index, 0);
  int tag3 = -1;  // (the last tag's buffer lies in the same region)
  thread_->run_sync([&] { tag3 = ring_->find_buffer(Buffer(3), kBufBytes); });
  EXPECT_EQ(tag3, index);
  Stop(true);
  for (uint16_t tag : {0, 1, 2}) {
    Kernel(tag, UBLK_IO_RES_ABORT);
    EXPECT_EQ(Registered(), index) << "after tag " << tag;
    EXPECT_FALSE(stopped_ || fake_->ended);
  }
  Kernel(3, UBLK_IO_RES_ABORT);
  EXPECT_TRUE(stopped_);
  EXPECT_TRUE(fake_->ended);
  EXPECT_EQ(registered_at_end_, -1);  // unregistered before the commands let go of the ring
  const std::byte* base = Buffer(0);
  queue_.reset();
  EXPECT_FALSE(Mapped(base, kAll));
}

// No abort is coming: the buffers leave the table all the same (the kernel copies into them
// through the page tables, not the ring), but stay mapped.
TEST_F(UblkQueueBuffersTest, WithoutAKernelStopTheBuffersLeaveTheTableButStayMapped) {
  Start(false);
  EXPECT_GE(Registered(), 0);
  Stop(false);
  EXPECT_TRUE(stopped_);
  EXPECT_EQ(registered_at_end_, -1);
  EXPECT_EQ(Registered(), -1);
  std::byte* base = Buffer(0);
  queue_.reset();
  EXPECT_TRUE(Mapped(base, kAll));
  munmap(base, kAll);  // what the queue leaked on purpose
}

// Refused (the table is full): the queue serves requests as before, from plain buffers.
TEST_F(UblkQueueBuffersTest, AFullTableLeavesTheBuffersPlain) {
  Start(true);
  EXPECT_FALSE(taken_.empty());
  EXPECT_FALSE(queue_->fixed_buffers());
  EXPECT_EQ(Registered(), -1);
  const std::vector<std::byte> data = testing::Pattern(3, 8192, kLength);
  mem_.write_now(8192, data);
  WriteDescriptor(descs_fd_, stride_, 2, UBLK_IO_OP_READ, 8192);
  Kernel(2, UBLK_IO_RES_OK);
  EXPECT_EQ(0, std::memcmp(Buffer(2), data.data(), kLength));
  thread_->run_sync([&] {
    ASSERT_EQ(fake_->queued.size(), kDepth + 1);
    EXPECT_EQ(fake_->queued.back().result, int32_t(kLength));
  });
  Stop(true);
  for (uint16_t tag = 0; tag < kDepth; ++tag) Kernel(tag, UBLK_IO_RES_ABORT);
  EXPECT_TRUE(stopped_);
}

}  // namespace
}  // namespace tiercache
