// A UblkQueue over a FileDevice on io_uring, with its real commands (UblkQueueHarness: a memfd
// stands in for /dev/ublkcN, and the test delivers each request itself): on the loop's ring
// the tags' buffers are registered with the ring the FileDevice's operations share, so a
// request's read and write of the file go READ_FIXED/WRITE_FIXED, counted exactly in
// IoQueueCounters::fixed_buffers, and byte-exact; on an own ring they stay plain.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <vector>

#include "cachelib/device/file_device.h"
#include "daemon/ublk/ublk_queue_harness.h"
#include "tests/support/sync_io.h"
#include "tests/support/temp_file.h"

namespace tiercache {
namespace {

using H = UblkQueueHarness;

// Parameter: the queue's commands on an own ring (true) or the loop's (false).
class UblkQueueFileTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(file_.ok());
    FileDeviceOptions o;
    o.backend = IoBackend::kUring;
    auto dev = FileDevice::Open(file_.path(), o);
    ASSERT_TRUE(dev.ok()) << dev.status().ToString();
    device_ = std::move(dev).value();
    ASSERT_NO_FATAL_FAILURE(h_.Start(*device_, GetParam()));
  }
  void TearDown() override {
    h_.Stop();
    h_.loop().run_sync([&] { device_.reset(); });  // its per-loop state, on the loop
  }

  testing::TempFile file_{"tiercache-ublk-file", 1 << 20};
  UblkQueueHarness h_;
  std::unique_ptr<FileDevice> device_;
};

TEST_P(UblkQueueFileTest, AWriteAndAReadOfTheFileUseTheRegisteredBuffers) {
  const bool own = GetParam();
  EXPECT_STREQ(h_.queue().ring_name(), own ? "own" : "loop");
  EXPECT_EQ(h_.queue().fixed_file(), !own);
  EXPECT_EQ(h_.queue().fixed_buffers(), !own);
  const std::vector<std::byte> data = testing::Pattern(11, 8192, H::kLength);
  std::memcpy(h_.buffer(1), data.data(), H::kLength);
  h_.SetDescriptor(1, UBLK_IO_OP_WRITE, 8192);
  h_.Receive(1, 1);
  h_.SetDescriptor(3, UBLK_IO_OP_READ, 8192);
  h_.Receive(3, 1);
  EXPECT_EQ(0, std::memcmp(h_.buffer(3), data.data(), H::kLength));
  std::vector<std::byte> stored(H::kLength);
  const int fd = open(file_.path().c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(pread(fd, stored.data(), H::kLength, 8192), ssize_t(H::kLength));
  close(fd);
  EXPECT_EQ(stored, data);  // in the file itself
  EXPECT_EQ(device_->io_counters().fixed_buffers, own ? 0u : 2u);
  EXPECT_EQ(h_.queue().requests_served(), 2u);
  // Every fetch and both commits reached the kernel (through the file table or the fd).
  EXPECT_EQ(h_.refused(), H::kDepth + 2u);
}

INSTANTIATE_TEST_SUITE_P(Rings, UblkQueueFileTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& p) {
                           return p.param ? "OwnRing" : "LoopRing";
                         });

}  // namespace
}  // namespace tiercache
