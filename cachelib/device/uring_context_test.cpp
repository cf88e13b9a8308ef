// UringContext and the ring's registered buffers, through a FileDevice on io_uring: reads and
// writes of one buffer inside a registered region go out as READ_FIXED/WRITE_FIXED (counted
// exactly in IoQueueCounters::fixed_buffers), byte-exact, with no heap allocation, and so do
// vectored merges whose iovecs all lie in one region (READV_FIXED/WRITEV_FIXED, Linux 6.15+);
// others (outside, straddling the region's end, after unregistration, and everything when the
// kernel refuses to pin the memory) as before.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/capability.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <future>

#include "cachelib/common/counting_new.h"
#include "cachelib/common/epoll_event_loop.h"
#include "cachelib/device/file_device.h"
#include "cachelib/device/loop_ring.h"
#include "tests/support/sync_io.h"
#include "tests/support/temp_file.h"

namespace tiercache {
namespace {

using testing::Pattern;

constexpr uint64_t kFileSize = 1 << 20;
constexpr size_t kBlock = 4096;
constexpr size_t kBlocks = 32;
constexpr size_t kRegistered = 16;  // the first 16 blocks of the buffer are registered

// A FileDevice on io_uring on a loop thread, and a buffer of at least 32 blocks whose first
// `registered` bytes (16 blocks by default) are registered with the loop's ring.
class Harness {
 public:
  explicit Harness(size_t registered = kRegistered * kBlock)
      : registered_(registered), bytes_(std::max(registered, kBlocks * kBlock)) {}
  bool Start() {
    auto t = LoopThread::Start("fixed-test");
    if (!file_.ok() || !t.ok()) return false;
    loop_ = std::move(t).value();
    FileDeviceOptions o;
    o.backend = IoBackend::kUring;
    auto dev = FileDevice::Open(file_.path(), o);
    if (!dev.ok()) return false;
    device_ = std::move(dev).value();
    buf_ = static_cast<std::byte*>(std::aligned_alloc(kBlock, bytes_));
    loop_->run_sync([&] {
      auto r = LoopRing::ForLoop(loop_->loop());
      if (!r.ok()) return;
      ring_ = std::move(r).value();
      index_ = ring_->register_buffer(buf_, registered_);
    });
    return ring_ != nullptr;
  }
  ~Harness() {
    if (loop_) {
      loop_->run_sync([&] {
        if (ring_) ring_->unregister_buffer(index_);
        ring_.reset();
        device_.reset();
      });
    }
    std::free(buf_);
  }
  int index() const { return index_; }
  void Unregister() {
    loop_->run_sync([&] { ring_->unregister_buffer(index_); });
    index_ = -1;
  }
  std::byte* Block(size_t i) { return buf_ + i * kBlock; }

  // Requests started in one loop task, request i on file block file_block(i) with memory
  // mem(i) of `len` bytes; waits for all. Returns how many succeeded.
  int Run(int n, bool write, const std::function<uint64_t(int)>& file_block,
          const std::function<std::byte*(int)>& mem, size_t len = kBlock) {
    std::promise<void> all;
    int left = n, ok = 0;
    loop_->loop().post([&] {
      for (int i = 0; i < n; ++i) {
        auto cb = [&](Status s) {
          ok += s.ok() ? 1 : 0;
          if (--left == 0) all.set_value();
        };
        if (write) {
          device_->write(file_block(i) * kBlock, {mem(i), len}, {}, cb);
        } else {
          device_->read(file_block(i) * kBlock, {mem(i), len}, cb);
        }
      }
    });
    all.get_future().wait();
    return ok;
  }
  uint64_t fixed() const { return device_->io_counters().fixed_buffers; }
  bool vectored_fixed() const { return ring_->vectored_fixed(); }
  uint64_t ops() const { return device_->io_counters().ops; }
  // The file's bytes at block `b`, read with pread (not through the device).
  std::vector<std::byte> FileBlock(uint64_t b) {
    std::vector<std::byte> out(kBlock);
    int fd = ::open(file_.path().c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0 || ::pread(fd, out.data(), kBlock, off_t(b * kBlock)) != ssize_t(kBlock)) {
      out.clear();
    }
    if (fd >= 0) ::close(fd);
    return out;
  }
  std::vector<std::byte> Mem(size_t i) { return {Block(i), Block(i) + kBlock}; }
  void Fill(size_t i, uint64_t seed) {
    auto p = Pattern(seed, i * kBlock, kBlock);
    std::copy(p.begin(), p.end(), Block(i));
  }
  FileDevice& device() { return *device_; }
  LoopThread& loop() { return *loop_; }

 private:
  testing::TempFile file_{"tiercache-fixed", kFileSize};
  std::unique_ptr<LoopThread> loop_;
  std::unique_ptr<FileDevice> device_;
  std::shared_ptr<LoopRing> ring_;
  const size_t registered_, bytes_;
  std::byte* buf_ = nullptr;
  int index_ = -1;
};

class UringFixedBufferTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(h_.Start()); }
  Harness h_;
};

// Every other file block (no merging): 10 writes and 10 reads, each its own kernel operation.
uint64_t Spread(int i) { return 2 * uint64_t(i); }

TEST_F(UringFixedBufferTest, ReadsAndWritesInARegisteredRegionGoFixedAndAreByteExact) {
  ASSERT_EQ(h_.index(), 0);
  for (size_t i = 0; i < 10; ++i) h_.Fill(i, 5);
  const uint64_t ops0 = h_.ops();
  ASSERT_EQ(h_.Run(10, true, Spread, [&](int i) { return h_.Block(i); }), 10);
  EXPECT_EQ(h_.fixed(), 10u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(h_.FileBlock(Spread(i)), h_.Mem(i)) << i;
  std::fill(h_.Block(0), h_.Block(kRegistered), std::byte{0});
  // Into blocks 6..15: the same region, other offsets in it.
  ASSERT_EQ(h_.Run(10, false, Spread, [&](int i) { return h_.Block(6 + i); }), 10);
  EXPECT_EQ(h_.fixed(), 20u);
  EXPECT_EQ(h_.ops() - ops0, 20u);
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(h_.Mem(6 + i), Pattern(5, i * kBlock, kBlock)) << i;
  }
}

TEST_F(UringFixedBufferTest, BuffersOutsideOrStraddlingTheRegionAreNotFixed) {
  for (size_t i = kRegistered; i < kBlocks; ++i) h_.Fill(i, 9);
  ASSERT_EQ(h_.Run(10, true, Spread, [&](int i) { return h_.Block(kRegistered + i); }), 10);
  ASSERT_EQ(h_.Run(10, false, Spread, [&](int i) { return h_.Block(kRegistered + 9 - i); }), 10);
  EXPECT_EQ(h_.fixed(), 0u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(h_.Mem(kRegistered + 9 - i), h_.FileBlock(Spread(i)));
  // 8 KiB from the region's last block into the next: not inside, so not fixed.
  ASSERT_EQ(h_.Run(1, false, Spread, [&](int) { return h_.Block(kRegistered - 1); }, 2 * kBlock),
            1);
  EXPECT_EQ(h_.fixed(), 0u);
  EXPECT_EQ(h_.ops(), 21u);
  EXPECT_EQ(h_.Mem(kRegistered - 1), Pattern(9, kRegistered * kBlock, kBlock));
  EXPECT_EQ(h_.Mem(kRegistered), h_.FileBlock(1));
}

// Whether this kernel has IORING_OP_READV_FIXED/WRITEV_FIXED: Linux 6.15 or later.
bool KernelHasVectoredFixed() {
  utsname u{};
  int major = 0, minor = 0;
  if (uname(&u) != 0 || std::sscanf(u.release, "%d.%d", &major, &minor) != 2) return false;
  return major > 6 || (major == 6 && minor >= 15);
}

TEST_F(UringFixedBufferTest, TheRingTakesVectoredFixedOperationsWhereTheKernelHasThem) {
  EXPECT_EQ(h_.vectored_fixed(), KernelHasVectoredFixed());
}

// Contiguous reads of one task merge: into contiguous registered memory one fixed read; into
// every other block of the region one vectored read, fixed where the kernel has READV_FIXED.
TEST_F(UringFixedBufferTest, MergedReadsAreFixedWhenTheirMemoryIsInOneRegion) {
  for (size_t i = 0; i < 8; ++i) h_.Fill(i, 2);
  ASSERT_EQ(h_.Run(8, true, Spread, [&](int i) { return h_.Block(i); }), 8);
  const uint64_t fixed0 = h_.fixed(), ops0 = h_.ops();
  auto file = [](int i) { return uint64_t(i); };
  ASSERT_EQ(h_.Run(8, false, file, [&](int i) { return h_.Block(8 + i); }), 8);
  EXPECT_EQ(h_.ops() - ops0, 1u);
  EXPECT_EQ(h_.fixed() - fixed0, 1u);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(h_.Mem(8 + i), h_.FileBlock(uint64_t(i))) << i;
  ASSERT_EQ(h_.Run(8, false, file, [&](int i) { return h_.Block(2 * i); }), 8);
  EXPECT_EQ(h_.ops() - ops0, 2u);
  EXPECT_EQ(h_.fixed() - fixed0, h_.vectored_fixed() ? 2u : 1u);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(h_.Mem(2 * i), h_.FileBlock(uint64_t(i))) << i;
}

// A vectored write from every other block of the region goes out fixed (WRITEV_FIXED, where the
// kernel has it: the test above checks the probe) and lands byte-exact; one whose last iovecs lie
// past the region's end is a plain writev on any kernel, as is a vectored read into that memory.
TEST_F(UringFixedBufferTest, VectoredOperationsAreFixedOnlyWhollyInsideTheRegion) {
  for (size_t i = 0; i < kBlocks; i += 2) h_.Fill(i, 3);
  auto file = [](int i) { return uint64_t(i); };
  uint64_t fixed0 = h_.fixed(), ops0 = h_.ops();
  ASSERT_EQ(h_.Run(8, true, file, [&](int i) { return h_.Block(2 * i); }), 8);  // blocks 0..14
  EXPECT_EQ(h_.ops() - ops0, 1u);
  EXPECT_EQ(h_.fixed() - fixed0, h_.vectored_fixed() ? 1u : 0u);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(h_.FileBlock(uint64_t(i)), h_.Mem(2 * i)) << i;
  fixed0 = h_.fixed(), ops0 = h_.ops();
  auto later = [](int i) { return uint64_t(8 + i); };
  ASSERT_EQ(h_.Run(8, true, later, [&](int i) { return h_.Block(8 + 2 * i); }), 8);  // 8..22
  EXPECT_EQ(h_.ops() - ops0, 1u);
  EXPECT_EQ(h_.fixed() - fixed0, 0u);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(h_.FileBlock(uint64_t(8 + i)), h_.Mem(8 + 2 * i)) << i;
  ASSERT_EQ(h_.Run(8, false, file, [&](int i) { return h_.Block(9 + 2 * i); }), 8);  // 9..23
  EXPECT_EQ(h_.ops() - ops0, 2u);
  EXPECT_EQ(h_.fixed() - fixed0, 0u);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(h_.Mem(9 + 2 * i), h_.FileBlock(uint64_t(i))) << i;
}

// TIERCACHE_NO_VECTORED_FIXED=1 when the ring is created: single buffers still go fixed,
// vectored operations do not.
TEST(UringVectoredFixedOffTest, TheEnvironmentTurnsVectoredFixedOff) {
  ASSERT_EQ(setenv("TIERCACHE_NO_VECTORED_FIXED", "1", 1), 0);
  Harness h;
  const bool started = h.Start();
  unsetenv("TIERCACHE_NO_VECTORED_FIXED");
  ASSERT_TRUE(started);
  EXPECT_FALSE(h.vectored_fixed());
  for (size_t i = 0; i < 8; ++i) h.Fill(2 * i, 4);
  auto file = [](int i) { return uint64_t(i); };
  ASSERT_EQ(h.Run(8, true, file, [&](int i) { return h.Block(2 * i); }), 8);
  ASSERT_EQ(h.Run(1, false, file, [&](int) { return h.Block(1); }), 1);
  EXPECT_EQ(h.ops(), 2u);
  EXPECT_EQ(h.fixed(), 1u);  // the single read
  for (int i = 0; i < 8; ++i) EXPECT_EQ(h.FileBlock(uint64_t(i)), h.Mem(2 * i)) << i;
}

TEST_F(UringFixedBufferTest, AfterUnregistrationNothingIsFixed) {
  ASSERT_EQ(h_.Run(4, false, Spread, [&](int i) { return h_.Block(i); }), 4);
  EXPECT_EQ(h_.fixed(), 4u);
  h_.Unregister();
  ASSERT_EQ(h_.Run(4, false, Spread, [&](int i) { return h_.Block(i); }), 4);
  EXPECT_EQ(h_.fixed(), 4u);
  EXPECT_EQ(h_.ops(), 8u);
}

// 2000 reads one after the other into the registered block, after 2000 that warm the queue:
// no operator new on the fixed path, and every read fixed.
TEST_F(UringFixedBufferTest, FixedReadsAllocateNothing) {
  struct Chain {
    FileDevice* device = nullptr;
    std::byte* buf = nullptr;
    int left = 4000;
    uint64_t start = 0, allocs = 0;
    std::promise<void> done;
    void Next() {
      if (left == 2000) start = OperatorNewCalls();
      if (left == 0) {
        allocs = OperatorNewCalls() - start;
        return done.set_value();
      }
      --left;
      device->read(uint64_t(left % 200) * kBlock, {buf, kBlock}, [this](Status) { Next(); });
    }
  } chain;
  chain.device = &h_.device();
  chain.buf = h_.Block(3);
  auto finished = chain.done.get_future();
  h_.loop().loop().post([&chain] { chain.Next(); });
  finished.wait();
  EXPECT_EQ(chain.allocs, 0u);
  EXPECT_EQ(h_.fixed(), 4000u);
}

// Without CAP_IPC_LOCK and with RLIMIT_MEMLOCK at 1 MiB (the ring's own memory counts too on
// 6.18: it needs about 300 KiB) the kernel refuses to pin a 4 MiB region (ENOMEM): nothing
// registers, and the device works as before. Exit code: 0, or the step that failed.
int RunWithoutLockedMemory() {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct caps[2]{};
  if (syscall(SYS_capget, &header, caps) != 0) return 10;
  caps[CAP_IPC_LOCK / 32].effective &= ~(1u << (CAP_IPC_LOCK % 32));
  caps[CAP_IPC_LOCK / 32].permitted &= ~(1u << (CAP_IPC_LOCK % 32));
  if (syscall(SYS_capset, &header, caps) != 0) return 11;
  const rlimit one_mib{1 << 20, 1 << 20};
  if (setrlimit(RLIMIT_MEMLOCK, &one_mib) != 0) return 12;
  Harness h(4 << 20);  // its loop thread starts now, without the capability
  if (!h.Start()) return 13;
  if (h.index() != -1) return 14;
  for (size_t i = 0; i < 4; ++i) h.Fill(i, 7);
  if (h.Run(4, true, Spread, [&](int i) { return h.Block(i); }) != 4) return 15;
  std::fill(h.Block(0), h.Block(4), std::byte{0});
  if (h.Run(4, false, Spread, [&](int i) { return h.Block(i); }) != 4) return 16;
  for (int i = 0; i < 4; ++i) {
    if (h.Mem(i) != Pattern(7, i * kBlock, kBlock)) return 17;
  }
  if (h.fixed() != 0) return 18;
  return 0;
}

TEST(UringFixedBufferFallbackTest, RefusedRegistrationLeavesEverythingUnfixed) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::_Exit(RunWithoutLockedMemory()), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace tiercache
