#include "cachelib/device/file_device.h"

#include <fcntl.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <future>

#include "cachelib/common/epoll_event_loop.h"
#include "cachelib/common/sim_event_loop.h"
#include "tests/support/sync_io.h"
#include "tests/support/temp_file.h"

namespace tiercache {
namespace {

using testing::Pattern;

constexpr uint64_t kFileSize = 16ull << 20;
constexpr uint32_t kBlock = 4096;

// A heap buffer aligned to 4096 bytes, optionally handed out at a misaligning offset.
struct Buffer {
  explicit Buffer(size_t n, size_t skew = 0) : skew(skew) {
    mem = static_cast<std::byte*>(std::aligned_alloc(4096, (n + skew + 4095) / 4096 * 4096));
    std::memset(mem, 0xEE, n + skew);
    size = n;
  }
  ~Buffer() { std::free(mem); }
  Buffer(const Buffer&) = delete;
  std::span<std::byte> span() { return {mem + skew, size}; }
  std::vector<std::byte> vec() { return {mem + skew, mem + skew + size}; }
  void fill(const std::vector<std::byte>& v) { std::memcpy(mem + skew, v.data(), v.size()); }
  std::byte* mem;
  size_t size;
  size_t skew;
};

// Submits on the loop thread and waits. Also checks the callback never runs inside the call.
Status RunOn(LoopThread& t, const std::function<void(IoCallback)>& submit) {
  std::promise<Status> done;
  t.loop().post([&] {
    auto returned = std::make_shared<bool>(false);
    submit([&, returned](Status s) {
      EXPECT_TRUE(*returned) << "callback ran inline";
      done.set_value(std::move(s));
    });
    *returned = true;
  });
  return done.get_future().get();
}

// Runs every request in `submits` at once on the loop and waits for all of them.
std::vector<Status> RunAll(LoopThread& t, std::vector<std::function<void(IoCallback)>> submits) {
  std::vector<Status> results(submits.size());
  std::promise<void> all;
  size_t left = submits.size();
  t.loop().post([&] {
    for (size_t i = 0; i < submits.size(); ++i) {
      submits[i]([&, i](Status s) {
        results[i] = std::move(s);
        if (--left == 0) all.set_value();
      });
    }
  });
  all.get_future().wait();
  return results;
}

// Every FileDeviceTest runs on both backends.
class FileDeviceTest : public ::testing::TestWithParam<IoBackend> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(file_.ok());
    path_ = file_.path();
    auto t = LoopThread::Start("test-loop");
    ASSERT_TRUE(t.ok());
    loop_ = std::move(t).value();
  }

  std::unique_ptr<FileDevice> Open(FileDeviceOptions o = {}) {
    o.backend = GetParam();
    auto dev = FileDevice::Open(path_, o);
    EXPECT_TRUE(dev.ok()) << dev.status().ToString();
    return dev.ok() ? std::move(dev).value() : nullptr;
  }
  // Reads the file through an independent buffered descriptor.
  std::vector<std::byte> FileBytes(uint64_t offset, size_t length) {
    std::vector<std::byte> out(length);
    int fd = open(path_.c_str(), O_RDONLY);
    EXPECT_EQ(pread(fd, out.data(), length, offset), ssize_t(length));
    close(fd);
    return out;
  }
  Status Write(Device& d, uint64_t off, std::span<const std::byte> b, WriteFlags f = {}) {
    return RunOn(*loop_, [&](IoCallback cb) { d.write(off, b, f, std::move(cb)); });
  }
  Status Read(Device& d, uint64_t off, std::span<std::byte> b) {
    return RunOn(*loop_, [&](IoCallback cb) { d.read(off, b, std::move(cb)); });
  }

  testing::TempFile file_{"tiercache-file-device", kFileSize};
  std::string path_;
  std::unique_ptr<LoopThread> loop_;  // declared before devices in tests: outlives them
};

TEST_P(FileDeviceTest, GeometryOfARegularFile) {
  ASSERT_EQ(truncate(path_.c_str(), 10 * kBlock + 100), 0);
  auto dev = Open();
  ASSERT_TRUE(dev);
  EXPECT_EQ(dev->size(), 10u * kBlock);  // the partial tail block is not addressable
  EXPECT_EQ(dev->block_size(), kBlock);
  EXPECT_FALSE(dev->is_block_device());
  EXPECT_EQ(dev->name(), path_);
}

TEST_P(FileDeviceTest, ManyRequestsInFlightAreByteExact) {
  FileDeviceOptions o;
  o.queue_depth = 8;  // far fewer than the 300 requests below: most wait in the FIFO
  auto dev = Open(o);
  ASSERT_TRUE(dev);
  std::vector<std::unique_ptr<Buffer>> bufs;
  std::vector<uint64_t> offsets;
  std::vector<std::function<void(IoCallback)>> writes, reads;
  uint64_t off = 0;
  for (int i = 0; i < 300; ++i) {
    size_t len = kBlock * (1 + i % 13);
    offsets.push_back(off);
    bufs.push_back(std::make_unique<Buffer>(len));
    bufs.back()->fill(Pattern(7, off, len));
    Buffer* b = bufs.back().get();
    writes.push_back([&d = *dev, off, b](IoCallback cb) { d.write(off, b->span(), {}, cb); });
    off += len + kBlock;  // leave a gap that must stay zero
  }
  ASSERT_LT(off, kFileSize);
  for (const Status& s : RunAll(*loop_, std::move(writes))) ASSERT_TRUE(s.ok()) << s.ToString();
  std::vector<std::unique_ptr<Buffer>> outs;
  for (size_t i = 0; i < offsets.size(); ++i) {
    outs.push_back(std::make_unique<Buffer>(bufs[i]->size));
    Buffer* b = outs.back().get();
    reads.push_back([&d = *dev, o = offsets[i], b](IoCallback cb) { d.read(o, b->span(), cb); });
  }
  for (const Status& s : RunAll(*loop_, std::move(reads))) ASSERT_TRUE(s.ok()) << s.ToString();
  for (size_t i = 0; i < offsets.size(); ++i) {
    ASSERT_EQ(outs[i]->vec(), Pattern(7, offsets[i], bufs[i]->size)) << "request " << i;
    ASSERT_EQ(FileBytes(offsets[i], bufs[i]->size), Pattern(7, offsets[i], bufs[i]->size));
    ASSERT_EQ(FileBytes(offsets[i] + bufs[i]->size, kBlock), std::vector<std::byte>(kBlock));
  }
  EXPECT_EQ(dev->stats().writes.load(), 300u);
  EXPECT_EQ(dev->stats().reads.load(), 300u);
  EXPECT_EQ(dev->stats().errors.load(), 0u);
}

TEST_P(FileDeviceTest, MisalignedBuffersAreBounced) {
  auto dev = Open();
  ASSERT_TRUE(dev);
  Buffer in(3 * kBlock, 3);  // address % 4096 == 3: O_DIRECT would refuse it
  in.fill(Pattern(9, 8 * kBlock, 3 * kBlock));
  ASSERT_TRUE(Write(*dev, 8 * kBlock, in.span()).ok());
  EXPECT_EQ(FileBytes(8 * kBlock, 3 * kBlock), Pattern(9, 8 * kBlock, 3 * kBlock));
  Buffer out(3 * kBlock, 511);
  ASSERT_TRUE(Read(*dev, 8 * kBlock, out.span()).ok());
  EXPECT_EQ(out.vec(), Pattern(9, 8 * kBlock, 3 * kBlock));
  EXPECT_EQ(out.mem[510], std::byte{0xEE});  // nothing written before the span
}

TEST_P(FileDeviceTest, FuaWritesNativeAndEmulated) {
  for (bool emulate : {false, true}) {
    FileDeviceOptions o;
    o.emulate_fua = emulate;
    auto dev = Open(o);
    ASSERT_TRUE(dev);
    Buffer in(2 * kBlock);
    in.fill(Pattern(emulate ? 2 : 1, 0, 2 * kBlock));
    ASSERT_TRUE(Write(*dev, 0, in.span(), WriteFlags{.fua = true}).ok());
    EXPECT_EQ(FileBytes(0, 2 * kBlock), Pattern(emulate ? 2 : 1, 0, 2 * kBlock));
    EXPECT_EQ(dev->stats().errors.load(), 0u);
  }
}

TEST_P(FileDeviceTest, FlushNativeAndOnHelperThread) {
  for (bool emulate : {false, true}) {
    FileDeviceOptions o;
    o.emulate_flush = emulate;
    auto dev = Open(o);
    ASSERT_TRUE(dev);
    Buffer in(kBlock);
    in.fill(Pattern(3, kBlock, kBlock));
    ASSERT_TRUE(Write(*dev, kBlock, in.span()).ok());
    Status s = RunOn(*loop_, [&](IoCallback cb) { dev->flush(std::move(cb)); });
    EXPECT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(dev->stats().flushes.load(), 1u);
  }
}

TEST_P(FileDeviceTest, DiscardPunchesAHoleThatReadsZeros) {
  auto dev = Open();
  ASSERT_TRUE(dev);
  Buffer in(64 * kBlock);
  in.fill(Pattern(4, 0, 64 * kBlock));
  ASSERT_TRUE(Write(*dev, 0, in.span()).ok());
  struct stat before {
  }, after{};
  ASSERT_EQ(stat(path_.c_str(), &before), 0);
  Status s = RunOn(*loop_, [&](IoCallback cb) { dev->discard(16 * kBlock, 32 * kBlock, cb); });
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(stat(path_.c_str(), &after), 0);
  EXPECT_EQ(before.st_blocks - after.st_blocks, 32 * kBlock / 512);  // really deallocated
  Buffer out(64 * kBlock);
  ASSERT_TRUE(Read(*dev, 0, out.span()).ok());
  auto want = Pattern(4, 0, 64 * kBlock);
  std::fill(want.begin() + 16 * kBlock, want.begin() + 48 * kBlock, std::byte{0});
  EXPECT_EQ(out.vec(), want);
  EXPECT_EQ(dev->stats().discards.load(), 1u);
}

TEST_P(FileDeviceTest, WriteZeroesReadsZeros) {
  auto dev = Open();
  ASSERT_TRUE(dev);
  Buffer in(16 * kBlock);
  in.fill(Pattern(5, 0, 16 * kBlock));
  ASSERT_TRUE(Write(*dev, 0, in.span()).ok());
  Status s = RunOn(*loop_, [&](IoCallback cb) { dev->write_zeroes(kBlock, 2 * kBlock, {}, cb); });
  ASSERT_TRUE(s.ok()) << s.ToString();
  s = RunOn(*loop_,
            [&](IoCallback cb) { dev->write_zeroes(8 * kBlock, kBlock, {.fua = true}, cb); });
  ASSERT_TRUE(s.ok()) << s.ToString();
  auto want = Pattern(5, 0, 16 * kBlock);
  std::fill(want.begin() + kBlock, want.begin() + 3 * kBlock, std::byte{0});
  std::fill(want.begin() + 8 * kBlock, want.begin() + 9 * kBlock, std::byte{0});
  Buffer out(16 * kBlock);
  ASSERT_TRUE(Read(*dev, 0, out.span()).ok());
  EXPECT_EQ(out.vec(), want);
  EXPECT_EQ(FileBytes(0, 16 * kBlock), want);
  EXPECT_EQ(dev->stats().write_zeroes.load(), 2u);
}

TEST_P(FileDeviceTest, WriteZeroesByWritingZeroBuffers) {
  FileDeviceOptions o;
  o.emulate_write_zeroes = true;
  auto dev = Open(o);
  ASSERT_TRUE(dev);
  constexpr uint64_t kLen = 3 * (1 << 20) + 2 * kBlock;  // several passes over the 1 MiB buffer
  Buffer in(kLen + 2 * kBlock);
  in.fill(Pattern(6, 0, in.size));
  ASSERT_TRUE(Write(*dev, 0, in.span()).ok());
  Status s =
      RunOn(*loop_, [&](IoCallback cb) { dev->write_zeroes(kBlock, kLen, {.fua = true}, cb); });
  ASSERT_TRUE(s.ok()) << s.ToString();
  auto want = Pattern(6, 0, in.size);
  std::fill(want.begin() + kBlock, want.begin() + kBlock + kLen, std::byte{0});
  EXPECT_TRUE(FileBytes(0, in.size) == want);
}

TEST_P(FileDeviceTest, TwoLoopsShareOneDevice) {
  auto second = LoopThread::Start("test-loop-2");
  ASSERT_TRUE(second.ok());
  FileDeviceOptions o;
  o.queue_depth = 4;
  auto dev = Open(o);
  ASSERT_TRUE(dev);
  constexpr int kPerLoop = 64;
  constexpr uint64_t kHalf = kFileSize / 2;
  std::vector<std::unique_ptr<Buffer>> bufs;
  std::vector<std::function<void(IoCallback)>> subs[2];
  for (int half = 0; half < 2; ++half) {
    for (int i = 0; i < kPerLoop; ++i) {
      uint64_t off = half * kHalf + i * 8 * kBlock;
      bufs.push_back(std::make_unique<Buffer>(8 * kBlock));
      bufs.back()->fill(Pattern(11, off, 8 * kBlock));
      Buffer* b = bufs.back().get();
      subs[half].push_back([&d = *dev, off, b](IoCallback cb) { d.write(off, b->span(), {}, cb); });
    }
  }
  auto other = std::async(std::launch::async, [&] { return RunAll(*second.value(), subs[1]); });
  for (const Status& s : RunAll(*loop_, subs[0])) ASSERT_TRUE(s.ok()) << s.ToString();
  for (const Status& s : other.get()) ASSERT_TRUE(s.ok()) << s.ToString();
  // Each loop reads what the other one wrote.
  Buffer a(kPerLoop * 8 * kBlock), b(kPerLoop * 8 * kBlock);
  Status sa = RunOn(*loop_, [&](IoCallback cb) { dev->read(kHalf, a.span(), cb); });
  Status sb = RunOn(*second.value(), [&](IoCallback cb) { dev->read(0, b.span(), cb); });
  ASSERT_TRUE(sa.ok() && sb.ok());
  EXPECT_EQ(a.vec(), Pattern(11, kHalf, a.size));
  EXPECT_EQ(b.vec(), Pattern(11, 0, b.size));
  dev.reset();  // before `second` stops: the device unregisters from both loops
}

TEST_P(FileDeviceTest, ReadPastEndIsRejectedBeforeTheFile) {
  auto dev = Open();
  ASSERT_TRUE(dev);
  Buffer buf(2 * kBlock);
  Status s = Read(*dev, kFileSize - kBlock, buf.span());
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(s.message(), path_ + ": range [" + std::to_string(kFileSize - kBlock) +
                             ", +8192) past the end (" + std::to_string(kFileSize) + " bytes)");
  EXPECT_EQ(Write(*dev, kFileSize, buf.span()).code(), Status::Code::kNoSpace);
  EXPECT_EQ(dev->stats().rejected.load(), 2u);
  EXPECT_EQ(dev->stats().reads.load(), 0u);
}

TEST_P(FileDeviceTest, ShortReadIsResubmittedThenReportsEof) {
  auto dev = Open();
  ASSERT_TRUE(dev);
  // The file shrinks under the device: the read gets one block, then nothing.
  ASSERT_EQ(truncate(path_.c_str(), kFileSize - kBlock), 0);
  Buffer buf(2 * kBlock);
  Status s = Read(*dev, kFileSize - 2 * kBlock, buf.span());
  EXPECT_EQ(s.code(), Status::Code::kIoError);
  EXPECT_EQ(s.message(), "pread " + path_ + " offset " + std::to_string(kFileSize - kBlock) +
                             " length 4096: no progress (file shrunk?)");
}

TEST_P(FileDeviceTest, ReadOnlyRefusesWrites) {
  FileDeviceOptions o;
  o.read_only = true;
  auto dev = Open(o);
  ASSERT_TRUE(dev);
  Buffer buf(kBlock);
  Status s = Write(*dev, 0, buf.span());
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(s.message(), path_ + ": write on a device opened read-only");
  EXPECT_TRUE(Read(*dev, 0, buf.span()).ok());
}

TEST_P(FileDeviceTest, NeedsALoopThatWatchesFds) {
  auto dev = Open();
  ASSERT_TRUE(dev);
  SimEventLoop sim;
  std::vector<std::byte> buf(kBlock);
  Status s = testing::SyncRead(sim, *dev, 0, buf);
  EXPECT_EQ(s.code(), Status::Code::kNotSupported);
  const char* what = GetParam() == IoBackend::kUring ? "io_uring" : "AIO";
  EXPECT_EQ(s.message().rfind(path_ + ": cannot set up " + what + " on this event loop: ", 0), 0u)
      << s.message();
}

INSTANTIATE_TEST_SUITE_P(Backends, FileDeviceTest,
                         ::testing::Values(IoBackend::kUring, IoBackend::kAio),
                         [](const auto& info) {
                           return std::string(info.param == IoBackend::kUring ? "io_uring"
                                                                              : "libaio");
                         });

TEST(FileDeviceOpenTest, MissingFileIsNotFound) {
  auto dev = FileDevice::Open("/var/tmp/tiercache-no-such-file");
  ASSERT_FALSE(dev.ok());
  EXPECT_EQ(dev.status().code(), Status::Code::kNotFound);
  EXPECT_EQ(dev.status().message(),
            "open /var/tmp/tiercache-no-such-file: No such file or directory");
}

TEST(FileDeviceOpenTest, RefusedODirectExplainsTheCause) {
  // procfs never supports O_DIRECT.
  FileDeviceOptions o;
  o.read_only = true;
  auto dev = FileDevice::Open("/proc/version", o);
  ASSERT_FALSE(dev.ok());
  EXPECT_EQ(dev.status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(dev.status().message(),
            "open /proc/version: the filesystem refuses O_DIRECT (open returned EINVAL); use "
            "the page cache instead (tiercached --buffered)");
}

// A directory or a character device refuses O_DIRECT too; the error says what it is, not that
// the filesystem refuses O_DIRECT (QA, 2026-12-07: `tiercache check --cache DIR` said that).
TEST(FileDeviceOpenTest, ADirectoryOrCharacterDeviceIsNamedForWhatItIs) {
  FileDeviceOptions o;
  o.read_only = true;
  for (const char* path : {"/var/tmp", "/dev/null"}) {
    auto dev = FileDevice::Open(path, o);
    ASSERT_FALSE(dev.ok()) << path;
    EXPECT_EQ(dev.status().code(), Status::Code::kInvalidArgument);
    EXPECT_EQ(dev.status().message(), std::string(path) + ": not a regular file or a block device");
  }
}

TEST(FileDeviceOpenTest, TmpfsWithAndWithoutODirect) {
  // tmpfs refuses O_DIRECT before Linux 6.6 and accepts it since.
  std::string path = "/dev/shm/tiercache-file-device-test";
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, 1 << 20), 0);
  close(fd);
  int probe = open(path.c_str(), O_RDWR | O_DIRECT);
  bool kernel_allows = probe >= 0;
  if (probe >= 0) close(probe);
  auto direct = FileDevice::Open(path);
  if (kernel_allows) {
    EXPECT_TRUE(direct.ok()) << direct.status().ToString();
  } else {
    ASSERT_FALSE(direct.ok());
    EXPECT_EQ(direct.status().message(),
              "open " + path +
                  ": the filesystem refuses O_DIRECT (open returned EINVAL); use the page "
                  "cache instead (tiercached --buffered)");
  }
  FileDeviceOptions o;
  o.buffered = true;
  auto buffered = FileDevice::Open(path, o);
  EXPECT_TRUE(buffered.ok()) << buffered.status().ToString();
  unlink(path.c_str());
}

// A loop device over a 1 MiB file, detached at the end; skips the test where none can be set up
// (not root, no loop driver).
class LoopDevice {
 public:
  LoopDevice() {
    backing_ = open(kFile, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (backing_ < 0 || ftruncate(backing_, 1 << 20) != 0) return;
    int control = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
    if (control < 0) return;
    int n = ioctl(control, LOOP_CTL_GET_FREE);
    close(control);
    if (n < 0) return;
    path_ = "/dev/loop" + std::to_string(n);
    loop_ = open(path_.c_str(), O_RDWR | O_CLOEXEC);
    if (loop_ >= 0 && ioctl(loop_, LOOP_SET_FD, backing_) != 0) {
      close(loop_);
      loop_ = -1;
    }
  }
  ~LoopDevice() {
    if (loop_ >= 0) {
      ioctl(loop_, LOOP_CLR_FD, 0);
      close(loop_);
    }
    if (backing_ >= 0) close(backing_);
    unlink(kFile);
  }
  bool ok() const { return loop_ >= 0; }
  const std::string& path() const { return path_; }

 private:
  static constexpr const char* kFile = "/var/tmp/tiercache-file-device-loop";
  int backing_ = -1, loop_ = -1;
  std::string path_;
};

TEST(FileDeviceOpenTest, BlockDevicesAreOpenedExclusively) {
  LoopDevice loop;
  if (!loop.ok()) GTEST_SKIP() << "no loop device (needs root and the loop driver)";
  FileDeviceOptions o;
  o.buffered = true;
  auto first = FileDevice::Open(loop.path(), o);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_TRUE((*first)->is_block_device());
  auto second = FileDevice::Open(loop.path(), o);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), Status::Code::kBusy);
  EXPECT_EQ(second.status().message(),
            loop.path() + " is in use: it is mounted, or another program (another tiercached, an "
                          "md array, device-mapper) holds it exclusively");
  o.exclusive = false;  // what `tiercache check` does: it only reads
  auto shared = FileDevice::Open(loop.path(), o);
  EXPECT_TRUE(shared.ok()) << shared.status().ToString();
}

TEST(FileDeviceOpenTest, RejectsBadOptions) {
  FileDeviceOptions o;
  o.block_size = 1000;
  auto dev = FileDevice::Open("/var/tmp/x", o);
  ASSERT_FALSE(dev.ok());
  EXPECT_EQ(dev.status().message(),
            "/var/tmp/x: block_size 1000 is not 0 or a power of two in [512, 1 MiB]");
  o.block_size = 0;
  o.queue_depth = 0;
  EXPECT_EQ(FileDevice::Open("/var/tmp/x", o).status().code(), Status::Code::kInvalidArgument);
}

}  // namespace
}  // namespace tiercache
