// The host kernels these tests run on have no ublk driver: the tests cover what must work
// there (option checks, clear errors without a driver). The VM tests (tests/vm/) cover the
// real device.
#include "daemon/ublk/ublk_server.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "cachelib/device/memory_device.h"

namespace tiercache {
namespace {

TEST(UblkOptionsTest, DefaultsAreValid) { EXPECT_TRUE(UblkOptions{}.validate().ok()); }

TEST(UblkOptionsTest, EachBadFieldIsNamed) {
  struct Case {
    void (*mutate)(UblkOptions&);
    const char* field;
  };
  const Case cases[] = {
      {[](UblkOptions& o) { o.dev_id = -2; }, "dev_id"},
      {[](UblkOptions& o) { o.queues = 0; }, "queues"},
      {[](UblkOptions& o) { o.queues = 65; }, "queues"},
      {[](UblkOptions& o) { o.depth = 0; }, "depth"},
      {[](UblkOptions& o) { o.depth = 4097; }, "depth"},
      {[](UblkOptions& o) { o.max_io_bytes = 4095; }, "max_io_bytes"},
      {[](UblkOptions& o) { o.max_io_bytes = 6000; }, "max_io_bytes"},
      {[](UblkOptions& o) { o.max_io_bytes = (32u << 20) + 4096; }, "max_io_bytes"},
      {[](UblkOptions& o) { o.logical_block_size = 8192; }, "logical_block_size"},
      {[](UblkOptions& o) { o.logical_block_size = 256; }, "logical_block_size"},
      {[](UblkOptions& o) { o.logical_block_size = 3000; }, "logical_block_size"},
      {[](UblkOptions& o) { o.control_path.clear(); }, "control_path"},
  };
  for (const auto& c : cases) {
    UblkOptions o;
    c.mutate(o);
    Status s = o.validate();
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << c.field;
    EXPECT_NE(s.message().find(c.field), std::string::npos) << s.ToString();
  }
}

TEST(UblkServerTest, MissingControlNodeIsNotFoundWithAHint) {
  MemoryDevice dev("mem", 64 << 20, 512);
  UblkOptions o;
  o.control_path = "/nonexistent-dir/ublk-control";
  auto server = UblkServer::Start(dev, o);
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.status().code(), Status::Code::kNotFound);
  EXPECT_NE(server.status().message().find("/nonexistent-dir/ublk-control"), std::string::npos);
  EXPECT_NE(server.status().message().find("ublk_drv"), std::string::npos);

  auto recovered = UblkServer::Recover(dev, 0, o);
  ASSERT_FALSE(recovered.ok());
  EXPECT_EQ(recovered.status().code(), Status::Code::kNotFound);
}

// /dev/null accepts open(O_RDWR) but is no ublk control node: GET_FEATURES is refused (or
// io_uring itself is unavailable); either way a NotSupported error, never a crash.
TEST(UblkServerTest, ControlNodeThatRefusesGetFeaturesIsNotSupported) {
  MemoryDevice dev("mem", 64 << 20, 512);
  UblkOptions o;
  o.control_path = "/dev/null";
  auto server = UblkServer::Start(dev, o);
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.status().code(), Status::Code::kNotSupported) << server.status().ToString();
  const std::string& msg = server.status().message();
  EXPECT_TRUE(msg.find("GET_FEATURES") != std::string::npos ||
              msg.find("io_uring") != std::string::npos)
      << msg;
}

TEST(UblkServerTest, BadOptionsFailBeforeTouchingTheKernel) {
  MemoryDevice dev("mem", 64 << 20, 512);
  UblkOptions o;
  o.depth = 0;
  o.control_path = "/nonexistent-dir/ublk-control";  // would be NotFound if it got that far
  auto server = UblkServer::Start(dev, o);
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.status().code(), Status::Code::kInvalidArgument);
}

TEST(UblkServerTest, LogicalBlockSmallerThanTheDeviceBlockIsRefused) {
  MemoryDevice dev("mem4k", 64 << 20, 4096);
  UblkOptions o;
  o.logical_block_size = 512;
  o.control_path = "/nonexistent-dir/ublk-control";
  auto server = UblkServer::Start(dev, o);
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(server.status().message().find("mem4k"), std::string::npos);
}

TEST(UblkServerTest, FeatureNames) {
  EXPECT_EQ(UblkServer::FeatureNames(0), "none");
  EXPECT_EQ(
      UblkServer::FeatureNames(ublk::kFeatureUserRecovery | ublk::kFeatureUserRecoveryReissue |
                               ublk::kFeatureCmdIoctlEncode),
      "USER_RECOVERY|USER_RECOVERY_REISSUE|CMD_IOCTL_ENCODE");
  EXPECT_EQ(UblkServer::FeatureNames(ublk::kFeatureZeroCopy | (1ull << 40)),
            "ZERO_COPY|0x10000000000");
}

TEST(UblkControlTest, OpenMissingNodeIsNotFound) {
  auto control = UblkControl::Open("/nonexistent-dir/ublk-control");
  ASSERT_FALSE(control.ok());
  EXPECT_EQ(control.status().code(), Status::Code::kNotFound);
}

}  // namespace
}  // namespace tiercache
