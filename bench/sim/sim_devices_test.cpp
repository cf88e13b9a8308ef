// SimSsdDevice keeps exactly its metadata region and drops data; SimCoreDevice keeps nothing.
#include <gtest/gtest.h>

#include "bench/sim/sim_core_device.h"
#include "bench/sim/sim_ssd_device.h"
#include "tests/support/sync_io.h"

namespace tiercache::bench {
namespace {

using testing::Pattern;
using testing::SyncDiscard;
using testing::SyncFlush;
using testing::SyncRead;
using testing::SyncWrite;
using testing::SyncWriteZeroes;

std::vector<std::byte> Filled(size_t n, uint8_t v) { return std::vector<std::byte>(n, std::byte{v}); }

TEST(SimSsdDeviceTest, KeepsMetadataDropsData) {
  SimEventLoop loop;
  SimSsdDevice ssd(64 * 4096, 8 * 4096);
  const auto meta = Pattern(1, 4096, 2 * 4096);
  ASSERT_TRUE(SyncWrite(loop, ssd, 4096, meta).ok());
  ASSERT_TRUE(SyncWrite(loop, ssd, 8 * 4096, Pattern(2, 0, 4096)).ok());
  std::vector<std::byte> back(2 * 4096);
  ASSERT_TRUE(SyncRead(loop, ssd, 4096, back).ok());
  EXPECT_EQ(back, meta);
  std::vector<std::byte> data = Filled(4096, 0xAB);
  ASSERT_TRUE(SyncRead(loop, ssd, 8 * 4096, data).ok());
  EXPECT_EQ(data, Filled(4096, 0));
  EXPECT_EQ(ssd.memory_bytes(), 64u * 1024);  // one chunk of the metadata store
  EXPECT_EQ(ssd.stats().bytes_written.load(), 3u * 4096);
}

TEST(SimSsdDeviceTest, RequestAcrossDataOffsetSplits) {
  SimEventLoop loop;
  SimSsdDevice ssd(16 * 4096, 2 * 4096);
  const auto both = Pattern(3, 4096, 2 * 4096);  // last metadata block + first data block
  ASSERT_TRUE(SyncWrite(loop, ssd, 4096, both).ok());
  std::vector<std::byte> back = Filled(2 * 4096, 0xCD);
  ASSERT_TRUE(SyncRead(loop, ssd, 4096, back).ok());
  EXPECT_TRUE(std::equal(back.begin(), back.begin() + 4096, both.begin()));
  EXPECT_EQ(std::vector<std::byte>(back.begin() + 4096, back.end()), Filled(4096, 0));
  ASSERT_TRUE(SyncWriteZeroes(loop, ssd, 0, 4 * 4096).ok());
  ASSERT_TRUE(SyncRead(loop, ssd, 4096, back).ok());
  EXPECT_EQ(back, Filled(2 * 4096, 0));
  ASSERT_TRUE(SyncWrite(loop, ssd, 0, Pattern(4, 0, 4096)).ok());
  ASSERT_TRUE(SyncDiscard(loop, ssd, 0, 3 * 4096).ok());
  std::vector<std::byte> first(4096);
  ASSERT_TRUE(SyncRead(loop, ssd, 0, first).ok());
  EXPECT_EQ(first, Filled(4096, 0));
  EXPECT_TRUE(SyncFlush(loop, ssd).ok());
}

TEST(SimSsdDeviceTest, CompletesOnTheLoopNotInline) {
  SimEventLoop loop;
  SimSsdDevice ssd(16 * 4096, 4096);
  std::vector<std::byte> buf(4096);
  int done = 0;
  {
    EventLoop::ScopedCurrent scope(&loop);
    ssd.read(0, buf, [&](Status s) { done += s.ok(); });       // metadata
    ssd.read(4096, buf, [&](Status s) { done += s.ok(); });    // data
    ssd.write(4096, buf, {}, [&](Status s) { done += s.ok(); });
    EXPECT_EQ(done, 0);
  }
  loop.run_until_idle();
  EXPECT_EQ(done, 3);
}

TEST(SimCoreDeviceTest, DiscardsWritesReadsZeros) {
  SimEventLoop loop;
  SimCoreDevice core(uint64_t{1} << 40);  // 1 TiB costs nothing
  ASSERT_TRUE(SyncWrite(loop, core, 512, Pattern(5, 512, 4096)).ok());
  std::vector<std::byte> back = Filled(4096, 0xEE);
  ASSERT_TRUE(SyncRead(loop, core, 512, back).ok());
  EXPECT_EQ(back, Filled(4096, 0));
  EXPECT_TRUE(SyncDiscard(loop, core, 0, 1 << 20).ok());
  EXPECT_TRUE(SyncWriteZeroes(loop, core, 0, 1 << 20).ok());
  EXPECT_TRUE(SyncFlush(loop, core).ok());
  EXPECT_EQ(core.stats().bytes_read.load(), 4096u);
  EXPECT_EQ(core.stats().bytes_written.load(), 4096u);
}

}  // namespace
}  // namespace tiercache::bench
