#include "cachelib/device/memory_device.h"

#include <gtest/gtest.h>

#include "tests/support/sync_io.h"

namespace tiercache {
namespace {

using testing::Pattern;

TEST(MemoryDeviceTest, ReadsBackWritesAndZeros) {
  SimEventLoop loop;
  MemoryDevice dev("mem", 1 << 20, 4096);
  auto data = Pattern(1, 8192, 3 * 4096 * 8);  // spans chunk boundaries
  ASSERT_TRUE(testing::SyncWrite(loop, dev, 8192, data).ok());
  std::vector<std::byte> out(data.size());
  ASSERT_TRUE(testing::SyncRead(loop, dev, 8192, out).ok());
  EXPECT_EQ(out, data);
  ASSERT_TRUE(testing::SyncWriteZeroes(loop, dev, 12288, 4096).ok());
  ASSERT_TRUE(testing::SyncRead(loop, dev, 8192, out).ok());
  std::fill(data.begin() + 4096, data.begin() + 8192, std::byte{0});
  EXPECT_EQ(out, data);
}

TEST(MemoryDeviceTest, RejectsBadRangesWithoutChangingData) {
  SimEventLoop loop;
  MemoryDevice dev("mem", 1 << 20, 4096);
  std::vector<std::byte> buf(4096, std::byte{7});
  EXPECT_EQ(testing::SyncWrite(loop, dev, 1 << 20, buf).code(), Status::Code::kNoSpace);
  EXPECT_EQ(testing::SyncRead(loop, dev, 1 << 20, buf).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(testing::SyncWrite(loop, dev, 100, buf).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(testing::SyncWrite(loop, dev, 0, std::span<const std::byte>()).code(),
            Status::Code::kInvalidArgument);
  EXPECT_EQ(testing::SyncDiscard(loop, dev, UINT64_MAX - 4095, 8192).code(),
            Status::Code::kInvalidArgument);
  EXPECT_EQ(dev.stats().rejected.load(), 5u);
  EXPECT_EQ(dev.stats().writes.load(), 0u);
  EXPECT_EQ(dev.memory_bytes(), 0u);
}

TEST(MemoryDeviceTest, CallbackNeverRunsInline) {
  SimEventLoop loop;
  MemoryDevice dev("mem", 1 << 20, 4096);
  std::vector<std::byte> buf(4096);
  bool done = false;
  {
    EventLoop::ScopedCurrent scope(&loop);
    dev.read(0, buf, [&](Status s) { done = s.ok(); });
    EXPECT_FALSE(done);
  }
  loop.run_until_idle();
  EXPECT_TRUE(done);
}

}  // namespace
}  // namespace tiercache
