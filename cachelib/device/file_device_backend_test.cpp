// FileDevice's choice of kernel interface: io_uring by default, libaio where io_uring is refused
// (forced here with FileDeviceOptions::fail_uring_setup_errno), and the queue counters.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <future>

#include "cachelib/common/epoll_event_loop.h"
#include "cachelib/device/file_device.h"
#include "tests/support/sync_io.h"
#include "tests/support/temp_file.h"

namespace tiercache {
namespace {

using testing::Pattern;

constexpr uint64_t kFileSize = 1 << 20;
constexpr size_t kBlock = 4096;

class FileDeviceBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(file_.ok());
    path_ = file_.path();
    auto t = LoopThread::Start("backend-test");
    ASSERT_TRUE(t.ok());
    loop_ = std::move(t).value();
    buf_ = static_cast<std::byte*>(std::aligned_alloc(kBlock, 32 * kBlock));
  }
  void TearDown() override {
    std::free(buf_);
  }
  std::unique_ptr<FileDevice> Open(const FileDeviceOptions& o) {
    auto dev = FileDevice::Open(path_, o);
    EXPECT_TRUE(dev.ok()) << dev.status().ToString();
    return dev.ok() ? std::move(dev).value() : nullptr;
  }
  // Submits `n` requests of one block each (block i at offset i) in one loop task; waits.
  std::vector<Status> Run(int n, const std::function<void(int, IoCallback)>& submit) {
    std::vector<Status> out(n);
    std::promise<void> all;
    int left = n;
    loop_->loop().post([&] {
      for (int i = 0; i < n; ++i) {
        submit(i, [&, i](Status s) {
          out[i] = std::move(s);
          if (--left == 0) all.set_value();
        });
      }
    });
    all.get_future().wait();
    return out;
  }
  std::span<std::byte> Block(int i) { return {buf_ + i * kBlock, kBlock}; }
  // Writes then reads back `n` blocks and flushes; every step must succeed byte-exact.
  void WriteReadFlush(FileDevice& dev, int n) {
    for (int i = 0; i < n; ++i) {
      auto p = Pattern(3, i * kBlock, kBlock);
      std::copy(p.begin(), p.end(), Block(i).begin());
    }
    for (const Status& s :
         Run(n, [&](int i, IoCallback cb) { dev.write(i * kBlock, Block(i), {}, cb); })) {
      ASSERT_TRUE(s.ok()) << s.ToString();
    }
    std::fill(buf_, buf_ + n * kBlock, std::byte{0});
    for (const Status& s : Run(n, [&](int i, IoCallback cb) { dev.read(i * kBlock, Block(i), cb); })) {
      ASSERT_TRUE(s.ok()) << s.ToString();
    }
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(std::vector<std::byte>(Block(i).begin(), Block(i).end()),
                Pattern(3, i * kBlock, kBlock));
    }
    Status flushed = Run(1, [&](int, IoCallback cb) { dev.flush(cb); })[0];
    ASSERT_TRUE(flushed.ok()) << flushed.ToString();
  }

  testing::TempFile file_{"tiercache-backend", kFileSize};
  std::string path_;
  std::unique_ptr<LoopThread> loop_;  // outlives the devices
  std::byte* buf_ = nullptr;
};

TEST_F(FileDeviceBackendTest, AutoUsesIoUring) {
  auto dev = Open({});
  ASSERT_TRUE(dev);
  EXPECT_EQ(dev->backend_name(), "io_uring");
  WriteReadFlush(*dev, 4);
  EXPECT_EQ(dev->backend_name(), "io_uring");
}

TEST_F(FileDeviceBackendTest, AutoFallsBackToLibaioWhenIoUringIsRefused) {
  FileDeviceOptions o;
  o.fail_uring_setup_errno = ENOSYS;  // what a seccomp filter answers
  auto dev = Open(o);
  ASSERT_TRUE(dev);
  EXPECT_EQ(dev->backend_name(), "libaio");
  WriteReadFlush(*dev, 4);
  EXPECT_EQ(dev->backend_name(), "libaio");
  EXPECT_EQ(dev->stats().errors.load(), 0u);
}

TEST_F(FileDeviceBackendTest, UringOnlyFailsTheOpenWhenIoUringIsRefused) {
  FileDeviceOptions o;
  o.backend = IoBackend::kUring;
  o.fail_uring_setup_errno = EPERM;  // kernel.io_uring_disabled = 2
  auto dev = FileDevice::Open(path_, o);
  ASSERT_FALSE(dev.ok());
  EXPECT_EQ(dev.status().code(), Status::Code::kNotSupported);
  EXPECT_EQ(dev.status().message(),
            path_ + ": io_uring is not usable here (io_uring_queue_init: Operation not "
                    "permitted); the libaio backend is");
}

TEST_F(FileDeviceBackendTest, AioNeverAsksForIoUring) {
  FileDeviceOptions o;
  o.backend = IoBackend::kAio;
  o.fail_uring_setup_errno = EPERM;  // not consulted
  auto dev = Open(o);
  ASSERT_TRUE(dev);
  WriteReadFlush(*dev, 2);
  EXPECT_EQ(dev->backend_name(), "libaio");
}

// 20 writes started in one loop task on a queue of 32: one round, 20 in the kernel after it
// (every other block: contiguous writes would merge). io_uring hands each to the kernel on its
// own (LoopRing::submit_each()), libaio all in one io_submit.
TEST_F(FileDeviceBackendTest, IoCountersGiveTheQueueDepthAfterEachSubmission) {
  for (IoBackend backend : {IoBackend::kUring, IoBackend::kAio}) {
    FileDeviceOptions o;
    o.backend = backend;
    o.queue_depth = 32;
    auto dev = Open(o);
    ASSERT_TRUE(dev);
    for (const Status& s :
         Run(20, [&](int i, IoCallback cb) { dev->write(2 * i * kBlock, Block(i), {}, cb); })) {
      ASSERT_TRUE(s.ok()) << s.ToString();
    }
    IoQueueCounters c = dev->io_counters();
    EXPECT_EQ(c.rounds, 1u) << IoBackendName(backend);
    EXPECT_EQ(c.submit_calls, backend == IoBackend::kUring ? 20u : 1u);
    EXPECT_EQ(c.ops, 20u);
    EXPECT_EQ(c.in_flight_sum, 20u);
    EXPECT_EQ(c.merged, 0u);
  }
}

// 16 reads of consecutive blocks into every other block of a buffer, started in one loop task:
// one vectored O_DIRECT read, byte-exact, the blocks between untouched.
TEST_F(FileDeviceBackendTest, ContiguousReadsOfOneTaskBecomeOneKernelRead) {
  for (IoBackend backend : {IoBackend::kUring, IoBackend::kAio}) {
    FileDeviceOptions o;
    o.backend = backend;
    auto dev = Open(o);
    ASSERT_TRUE(dev);
    WriteReadFlush(*dev, 16);
    const IoQueueCounters before = dev->io_counters();
    std::fill(buf_, buf_ + 32 * kBlock, std::byte{0});
    for (const Status& s :
         Run(16, [&](int i, IoCallback cb) { dev->read(i * kBlock, Block(2 * i), cb); })) {
      ASSERT_TRUE(s.ok()) << s.ToString();
    }
    for (int i = 0; i < 16; ++i) {
      EXPECT_EQ(std::vector<std::byte>(Block(2 * i).begin(), Block(2 * i).end()),
                Pattern(3, i * kBlock, kBlock)) << i;
      EXPECT_EQ(std::vector<std::byte>(Block(2 * i + 1).begin(), Block(2 * i + 1).end()),
                std::vector<std::byte>(kBlock));
    }
    const IoQueueCounters after = dev->io_counters();
    EXPECT_EQ(after.ops - before.ops, 1u) << IoBackendName(backend);
    EXPECT_EQ(after.merged - before.merged, 15u);
  }
}

TEST(IoBackendTest, NamesRoundTrip) {
  for (IoBackend b : {IoBackend::kAuto, IoBackend::kUring, IoBackend::kAio}) {
    auto parsed = ParseIoBackend(IoBackendName(b));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, b);
  }
  auto bad = ParseIoBackend("epoll");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "I/O backend \"epoll\" is not one of auto, uring, aio");
}

}  // namespace
}  // namespace tiercache
