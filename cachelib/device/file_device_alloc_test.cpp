// Heap allocations per read and write of a FileDevice (operator new counted for this whole
// binary), on both backends: none once the loop's queue and pools are warm. With the engine's hit
// path (hit_path_alloc_test) and the NBD front-end (nbd_connection_alloc_test), a cache hit costs
// no heap allocation from the socket to the SSD file and back.
#include <gtest/gtest.h>

#include <cstdlib>
#include <future>
#include <string>

#include "cachelib/common/counting_new.h"
#include "cachelib/common/epoll_event_loop.h"
#include "cachelib/device/file_device.h"
#include "tests/support/temp_file.h"

namespace tiercache {
namespace {

constexpr uint64_t kFileSize = 1 << 20;

class FileDeviceAllocTest : public ::testing::TestWithParam<IoBackend> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(file_.ok());
    auto t = LoopThread::Start("alloc-loop");
    ASSERT_TRUE(t.ok());
    loop_ = std::move(t).value();
    FileDeviceOptions o;
    o.backend = GetParam();
    auto dev = FileDevice::Open(file_.path(), o);
    ASSERT_TRUE(dev.ok()) << dev.status().ToString();
    device_ = std::move(dev).value();
    buf_ = static_cast<std::byte*>(std::aligned_alloc(4096, 4096));
  }
  void TearDown() override {
    loop_->run_sync([&] { device_.reset(); });
    std::free(buf_);
  }

  // Runs 4 KiB operations one after the other on the loop, each completion starting the next.
  struct Chain {
    FileDevice* device;
    std::byte* buf;
    bool write;
    uint64_t left;
    uint64_t measure_from;  // `left` at which counting starts: the first ones warm the pools
    uint64_t ok = 0, allocs_at_start = 0, allocs = 0;
    std::promise<void> done;

    void Next() {
      if (left == measure_from) allocs_at_start = OperatorNewCalls();
      if (left == 0) {
        allocs = OperatorNewCalls() - allocs_at_start;
        return done.set_value();
      }
      --left;
      const uint64_t off = (left * 7919 % (kFileSize / 4096)) * 4096;
      auto cb = [this](Status s) {  // one pointer: std::function keeps it inline
        ok += s.ok() ? 1 : 0;
        Next();
      };
      if (write) {
        device->write(off, std::span<const std::byte>(buf, 4096), {}, cb);
      } else {
        device->read(off, std::span<std::byte>(buf, 4096), cb);
      }
    }
  };

  // Operator new calls over `n` operations, after as many more to warm the queue and the pools.
  uint64_t AllocsOver(uint64_t n, bool write, uint64_t* ok) {
    Chain chain{device_.get(), buf_, write, 2 * n, n, 0, 0, 0, {}};
    std::future<void> finished = chain.done.get_future();
    loop_->loop().post([&chain] { chain.Next(); });
    finished.wait();
    *ok = chain.ok;
    return chain.allocs;
  }

  testing::TempFile file_{"tiercache-file-alloc", kFileSize};
  std::unique_ptr<LoopThread> loop_;
  std::unique_ptr<FileDevice> device_;
  std::byte* buf_ = nullptr;
};

TEST_P(FileDeviceAllocTest, ReadsAllocateNothing) {
  uint64_t ok = 0;
  EXPECT_EQ(AllocsOver(2000, false, &ok), 0u);
  EXPECT_EQ(ok, 4000u);
  EXPECT_EQ(device_->stats().reads.load(), 4000u);
}

TEST_P(FileDeviceAllocTest, WritesAllocateNothing) {
  uint64_t ok = 0;
  EXPECT_EQ(AllocsOver(2000, true, &ok), 0u);
  EXPECT_EQ(ok, 4000u);
  EXPECT_EQ(device_->stats().writes.load(), 4000u);
}

INSTANTIATE_TEST_SUITE_P(Backends, FileDeviceAllocTest,
                         ::testing::Values(IoBackend::kUring, IoBackend::kAio),
                         [](const auto& info) {
                           return std::string(info.param == IoBackend::kUring ? "uring" : "aio");
                         });

}  // namespace
}  // namespace tiercache
