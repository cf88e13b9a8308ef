#include "cachelib/device/error_device.h"

#include <gtest/gtest.h>

#include "cachelib/device/memory_device.h"
#include "tests/support/sync_io.h"

namespace tiercache {
namespace {

using testing::Pattern;

class ErrorDeviceTest : public ::testing::Test {
 protected:
  SimEventLoop loop_;
  MemoryDevice mem_{"mem", 1 << 20, 4096};
  ErrorDevice dev_{mem_, "err"};
  std::vector<std::byte> block_ = Pattern(1, 0, 4096);

  Status Write(uint64_t off) { return testing::SyncWrite(loop_, dev_, off, block_); }
  Status Read(uint64_t off) {
    std::vector<std::byte> out(4096);
    return testing::SyncRead(loop_, dev_, off, out);
  }
};

TEST_F(ErrorDeviceTest, PassesEverythingThroughWithoutRules) {
  ASSERT_TRUE(Write(8192).ok());
  std::vector<std::byte> out(4096);
  ASSERT_TRUE(testing::SyncRead(loop_, dev_, 8192, out).ok());
  EXPECT_EQ(out, block_);
  EXPECT_TRUE(testing::SyncFlush(loop_, dev_).ok());
  EXPECT_EQ(dev_.injected(), 0u);
  EXPECT_EQ(mem_.stats().writes.load(), 1u);
}

TEST_F(ErrorDeviceTest, FailsOverlappingRangeForChosenKindsOnly) {
  dev_.fail_range(8192, 4096, ErrorDevice::kWrite);
  Status s = testing::SyncWrite(loop_, dev_, 4096, Pattern(2, 0, 8192));  // overlaps one block
  EXPECT_EQ(s.code(), Status::Code::kIoError);
  EXPECT_EQ(s.message(), "err: injected write error at offset 4096 length 8192");
  EXPECT_TRUE(Write(0).ok());      // ends right before the range
  EXPECT_TRUE(Write(12288).ok());  // starts right after it
  EXPECT_TRUE(Read(8192).ok());    // reads are not chosen
  EXPECT_EQ(testing::SyncWriteZeroes(loop_, dev_, 8192, 4096).message(),
            "err: injected write_zeroes error at offset 8192 length 4096");
  EXPECT_TRUE(testing::SyncDiscard(loop_, dev_, 8192, 4096).ok());
  EXPECT_EQ(dev_.injected(), 2u);
  EXPECT_EQ(mem_.stats().writes.load(), 2u);  // failed requests never reached the target
  std::vector<std::byte> out(4096);
  mem_.read_now(4096, out);
  EXPECT_EQ(out, std::vector<std::byte>(4096));  // the failed write left no trace
}

TEST_F(ErrorDeviceTest, RangeReachingTheEndOfTheAddressSpace) {
  dev_.fail_range(1 << 19, UINT64_MAX - (1 << 19), ErrorDevice::kRead);
  EXPECT_TRUE(Read((1 << 19) - 4096).ok());
  EXPECT_EQ(Read(1 << 19).code(), Status::Code::kIoError);
}

TEST_F(ErrorDeviceTest, FailsTheNthRequestOfChosenKinds) {
  dev_.fail_nth(3, ErrorDevice::kWrite | ErrorDevice::kFlush, 2);
  EXPECT_TRUE(Write(0).ok());                         // 1
  EXPECT_TRUE(Read(0).ok());                          // reads do not count
  EXPECT_TRUE(testing::SyncFlush(loop_, dev_).ok());  // 2
  EXPECT_EQ(Write(4096).message(), "err: injected write error at offset 4096 length 4096");  // 3
  EXPECT_EQ(testing::SyncFlush(loop_, dev_).message(), "err: injected flush error");         // 4
  EXPECT_TRUE(Write(4096).ok());                                                             // 5
  EXPECT_EQ(dev_.counted(), 5u);
  EXPECT_EQ(dev_.injected(), 2u);
  EXPECT_EQ(mem_.stats().flushes.load(), 1u);
}

TEST_F(ErrorDeviceTest, DisarmedNeitherFailsNorCounts) {
  dev_.fail_nth(1, ErrorDevice::kAnyKind, UINT64_MAX);
  dev_.fail_range(0, 1 << 20, ErrorDevice::kAnyKind);
  dev_.disarm();
  EXPECT_FALSE(dev_.armed());
  EXPECT_TRUE(Write(0).ok());
  EXPECT_TRUE(Read(0).ok());
  EXPECT_EQ(dev_.counted(), 0u);
  dev_.arm();
  EXPECT_EQ(Read(0).code(), Status::Code::kIoError);
  EXPECT_EQ(dev_.counted(), 1u);
  dev_.clear();
  EXPECT_TRUE(Read(0).ok());
  EXPECT_EQ(dev_.injected(), 1u);
  EXPECT_EQ(dev_.stats().errors.load(), 1u);
}

}  // namespace
}  // namespace tiercache
