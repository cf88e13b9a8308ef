// Device errors reach the client as IoError, are counted, and leave the cache serving correct data:
// a failed fill is not installed, a failed write-through write drops the (possibly partial) cached
// copy, and a failed cleaner write keeps the data dirty.
#include <gtest/gtest.h>

#include "cachelib/device/error_device.h"
#include "tests/support/cache_fixture.h"

namespace tiercache {
namespace {

using testing::Pattern;
constexpr uint64_t kLine = 64 * 1024;

class ErrorTest : public ::testing::Test {
 protected:
  void Make(CacheMode mode) {
    FormatOptions f;
    f.mode = mode;
    f.line_size = kLine;
    CacheOptions o;
    o.cleaning = "nop";
    h = std::make_unique<testing::CacheHarness>(4 << 20, 16 << 20, f, o);
    ssd = std::make_unique<ErrorDevice>(h->ssd_mem);
    core = std::make_unique<ErrorDevice>(h->core_mem);
    h->ssd = ssd.get();
    h->core = core.get();
    h->open();
  }
  Status Read(uint64_t off, std::vector<std::byte>& out) {
    Status s = testing::SyncRead(h->loop, *h->cache, off, out);
    h->loop.run_until_idle();
    return s;
  }

  std::unique_ptr<testing::CacheHarness> h;
  std::unique_ptr<ErrorDevice> ssd, core;
};

TEST_F(ErrorTest, CoreReadErrorFailsTheReadAndCachesNothing) {
  Make(CacheMode::kWriteThrough);
  h->core_mem.write_now(0, Pattern(1, 0, kLine));
  core->fail_range(0, kLine, ErrorDevice::kRead);
  std::vector<std::byte> buf(kLine);
  EXPECT_EQ(Read(0, buf).code(), Status::Code::kIoError);
  EXPECT_EQ(h->cache->counters().errors, 1u);
  EXPECT_EQ(h->cache->counters().lines_used, 0u);
  core->clear();
  ASSERT_TRUE(Read(0, buf).ok());
  EXPECT_EQ(buf, Pattern(1, 0, kLine));
}

TEST_F(ErrorTest, SsdWriteErrorDuringFillLeavesSectorsInvalid) {
  Make(CacheMode::kWriteThrough);
  h->core_mem.write_now(0, Pattern(2, 0, kLine));
  ssd->fail_nth(1, ErrorDevice::kWrite, UINT64_MAX);
  std::vector<std::byte> buf(kLine);
  ASSERT_TRUE(Read(0, buf).ok());  // the reply came from the core; only the fill failed
  EXPECT_EQ(buf, Pattern(2, 0, kLine));
  ssd->clear();
  ASSERT_TRUE(Read(0, buf).ok());
  EXPECT_EQ(buf, Pattern(2, 0, kLine));
  EXPECT_EQ(h->cache->counters().read_misses, 2u);  // nothing was marked valid the first time
}

TEST_F(ErrorTest, WriteThroughCoreErrorDropsTheCachedCopy) {
  Make(CacheMode::kWriteThrough);
  auto old_data = Pattern(3, 0, kLine);
  h->core_mem.write_now(0, old_data);
  std::vector<std::byte> buf(kLine);
  ASSERT_TRUE(Read(0, buf).ok());
  core->fail_range(0, 4096, ErrorDevice::kWrite);
  EXPECT_EQ(testing::SyncWrite(h->loop, *h->cache, 0, Pattern(4, 0, 4096)).code(),
            Status::Code::kIoError);
  core->clear();
  ASSERT_TRUE(Read(0, buf).ok());
  EXPECT_EQ(buf, old_data);  // the core never took the write, so neither does the cache
  EXPECT_EQ(h->cache->counters().read_partial_hits, 1u);
}

TEST_F(ErrorTest, SsdReadErrorOnHitIsReported) {
  Make(CacheMode::kWriteBack);
  ASSERT_TRUE(testing::SyncWrite(h->loop, *h->cache, 0, Pattern(5, 0, 4096)).ok());
  ssd->fail_range(h->cache->info().data_offset, kLine * 64, ErrorDevice::kRead);
  std::vector<std::byte> buf(4096);
  EXPECT_EQ(Read(0, buf).code(), Status::Code::kIoError);
  ssd->clear();
  ASSERT_TRUE(Read(0, buf).ok());
  EXPECT_EQ(buf, Pattern(5, 0, 4096));
}

TEST_F(ErrorTest, CleanerCoreWriteErrorKeepsDataDirty) {
  Make(CacheMode::kWriteBack);
  ASSERT_TRUE(testing::SyncWrite(h->loop, *h->cache, 0, Pattern(6, 0, 8192)).ok());
  core->fail_range(0, kLine, ErrorDevice::kWrite);
  EXPECT_EQ(testing::SyncCleanAll(h->loop, *h->cache).code(), Status::Code::kIoError);
  EXPECT_EQ(h->cache->counters().lines_dirty, 1u);
  core->clear();
  ASSERT_TRUE(testing::SyncCleanAll(h->loop, *h->cache).ok());
  EXPECT_EQ(h->cache->counters().lines_dirty, 0u);
  std::vector<std::byte> on_core(8192);
  h->core_mem.read_now(0, on_core);
  EXPECT_EQ(on_core, Pattern(6, 0, 8192));
}

}  // namespace
}  // namespace tiercache
