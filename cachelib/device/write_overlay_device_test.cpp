#include "cachelib/device/write_overlay_device.h"

#include <gtest/gtest.h>

#include "cachelib/device/memory_device.h"
#include "tests/support/sync_io.h"

namespace tiercache {
namespace {

using testing::Pattern;
using testing::SyncDiscard;
using testing::SyncFlush;
using testing::SyncRead;
using testing::SyncWrite;
using testing::SyncWriteZeroes;

class WriteOverlayDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_data_ = Pattern(1, 0, kSize);
    base_.write_now(0, base_data_);
  }
  std::vector<std::byte> read(Device& dev, uint64_t offset, size_t length) {
    std::vector<std::byte> out(length);
    EXPECT_TRUE(SyncRead(loop_, dev, offset, out).ok());
    return out;
  }

  static constexpr uint64_t kSize = 64 * 1024;
  SimEventLoop loop_;
  MemoryDevice base_{"ssd", kSize, 4096};
  std::vector<std::byte> base_data_;
};

TEST_F(WriteOverlayDeviceTest, ReadsSeeWritesTheTargetNeverDoes) {
  WriteOverlayDevice overlay(base_);
  EXPECT_EQ(overlay.size(), kSize);
  EXPECT_EQ(overlay.block_size(), 4096u);
  std::vector<std::byte> data = Pattern(2, 8192, 8192);
  ASSERT_TRUE(SyncWrite(loop_, overlay, 8192, data, WriteFlags{true}).ok());
  ASSERT_TRUE(SyncFlush(loop_, overlay).ok());
  EXPECT_EQ(overlay.overlay_blocks(), 2u);

  // Through the overlay: base bytes around the written blocks, new bytes inside.
  std::vector<std::byte> expected = base_data_;
  std::copy(data.begin(), data.end(), expected.begin() + 8192);
  EXPECT_EQ(read(overlay, 0, kSize), expected);
  std::vector<std::byte> middle(expected.begin() + 4096, expected.begin() + 16384);
  EXPECT_EQ(read(overlay, 4096, 12288), middle);

  // The target is untouched.
  EXPECT_EQ(read(base_, 0, kSize), base_data_);
  EXPECT_EQ(base_.stats().writes.load(), 0u);
}

TEST_F(WriteOverlayDeviceTest, ZeroesAndDiscardsStayInTheOverlay) {
  WriteOverlayDevice overlay(base_);
  ASSERT_TRUE(SyncWriteZeroes(loop_, overlay, 0, 4096).ok());
  ASSERT_TRUE(SyncDiscard(loop_, overlay, 61440, 4096).ok());
  std::vector<std::byte> expected = base_data_;
  std::fill(expected.begin(), expected.begin() + 4096, std::byte{0});
  std::fill(expected.end() - 4096, expected.end(), std::byte{0});
  EXPECT_EQ(read(overlay, 0, kSize), expected);
  EXPECT_EQ(read(base_, 0, kSize), base_data_);
  EXPECT_EQ(overlay.overlay_blocks(), 2u);
}

TEST_F(WriteOverlayDeviceTest, LaterWritesReplaceEarlierOnes) {
  WriteOverlayDevice overlay(base_);
  ASSERT_TRUE(SyncWrite(loop_, overlay, 4096, Pattern(3, 0, 4096)).ok());
  std::vector<std::byte> second = Pattern(4, 0, 4096);
  ASSERT_TRUE(SyncWrite(loop_, overlay, 4096, second).ok());
  EXPECT_EQ(read(overlay, 4096, 4096), second);
  EXPECT_EQ(overlay.overlay_blocks(), 1u);
}

}  // namespace
}  // namespace tiercache
