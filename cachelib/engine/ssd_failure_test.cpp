// SSD failure isolation (docs/io-paths.md "SSD failures"): with the SSD failing, clean data is
// answered from the core, write-through/around writes succeed on the core, dirty data is never
// replaced by the core's stale copy, and past the error threshold the cache runs as pass-through
// until reset_health() re-checks the SSD.
#include <gtest/gtest.h>

#include "cachelib/common/logger.h"
#include "cachelib/device/error_device.h"
#include "tests/support/cache_fixture.h"

namespace tiercache {
namespace {

using testing::Pattern;
constexpr uint64_t kLine = 64 * 1024;
constexpr uint64_t kLines = 8;  // the working set, in lines

class SsdFailureTest : public ::testing::Test {
 protected:
  void Make(CacheMode mode, uint32_t threshold) {
    FormatOptions f;
    f.mode = mode;
    f.line_size = kLine;
    f.policies.admission = "always";
    CacheOptions o;
    o.cleaning = "nop";
    o.ssd_error_threshold = threshold;
    o.trust_interval = trust_interval;
    h = std::make_unique<testing::CacheHarness>(4 << 20, 16 << 20, f, o);
    ssd = std::make_unique<ErrorDevice>(h->ssd_mem);
    h->ssd = ssd.get();
    h->open();
  }
  Nanos trust_interval = std::chrono::seconds(1);  // CacheOptions::trust_interval
  Status Read(uint64_t off, std::vector<std::byte>& out) {
    Status s = testing::SyncRead(h->loop, *h->cache, off, out);
    h->loop.run_until_idle();
    return s;
  }
  Status Write(uint64_t off, const std::vector<std::byte>& data) {
    Status s = testing::SyncWrite(h->loop, *h->cache, off, data);
    h->loop.run_until_idle();
    return s;
  }
  // Fills the cache with kLines lines of core data (seed 1) and checks they hit.
  void Warm() {
    for (uint64_t l = 0; l < kLines; ++l) h->core_mem.write_now(l * kLine, Pattern(1, l * kLine, kLine));
    std::vector<std::byte> buf(kLine);
    for (int pass = 0; pass < 2; ++pass) {
      for (uint64_t l = 0; l < kLines; ++l) ASSERT_TRUE(Read(l * kLine, buf).ok());
    }
    ASSERT_EQ(h->cache->counters().read_hits, kLines);
  }
  Status ResetHealth() {
    Status out = Status::Busy("not run");
    h->loop.post([&] { h->cache->reset_health([&](Status s) { out = s; }); });
    h->loop.run_until_idle();
    return out;
  }
  void FailSsdData(uint32_t kinds) {
    ssd->fail_range(h->cache->info().data_offset, 4 << 20, kinds);
  }
  std::vector<std::byte> OnCore(uint64_t off, size_t n) {
    std::vector<std::byte> out(n);
    h->core_mem.read_now(off, out);
    return out;
  }

  std::unique_ptr<testing::CacheHarness> h;
  std::unique_ptr<ErrorDevice> ssd;
};

TEST_F(SsdFailureTest, WtReadsOfCleanDataComeFromTheCoreWhenTheSsdFails) {
  Make(CacheMode::kWriteThrough, 0);  // count only: never leave the path
  Warm();
  FailSsdData(ErrorDevice::kRead);
  std::vector<std::byte> buf(kLine);
  for (uint64_t l = 0; l < kLines; ++l) {
    ASSERT_TRUE(Read(l * kLine, buf).ok());
    EXPECT_EQ(buf, Pattern(1, l * kLine, kLine)) << "line " << l;
  }
  CacheCounters c = h->cache->counters();
  EXPECT_EQ(c.ssd_read_errors, kLines);  // one failed SSD read per line
  EXPECT_EQ(c.ssd_write_errors, 0u);
  EXPECT_EQ(c.errors, 0u);
  EXPECT_EQ(c.read_hits, 2 * kLines);  // the failed hits still count as hits
  EXPECT_EQ(h->cache->health().state, "degraded");
  EXPECT_EQ(h->cache->health().read_errors, kLines);
  // The copies were dropped: the next reads are misses served by the core, refilled on the SSD.
  ssd->clear();
  for (uint64_t l = 0; l < kLines; ++l) {
    ASSERT_TRUE(Read(l * kLine, buf).ok());
    EXPECT_EQ(buf, Pattern(1, l * kLine, kLine));
  }
  EXPECT_EQ(h->cache->counters().read_misses, kLines + kLines);
}

TEST_F(SsdFailureTest, WtWritesSucceedOnTheCoreWhenSsdWritesFail) {
  Make(CacheMode::kWriteThrough, 0);
  Warm();
  FailSsdData(ErrorDevice::kWrite);
  for (uint64_t l = 0; l < kLines; ++l) {
    ASSERT_TRUE(Write(l * kLine + 4096, Pattern(2, l * kLine + 4096, 8192)).ok());
    EXPECT_EQ(OnCore(l * kLine + 4096, 8192), Pattern(2, l * kLine + 4096, 8192));
  }
  CacheCounters c = h->cache->counters();
  EXPECT_EQ(c.ssd_write_errors, kLines);
  EXPECT_EQ(c.errors, 0u);
  // The SSD copy of the written sectors was dropped; the rest of each line still hits.
  ssd->clear();
  std::vector<std::byte> buf(kLine);
  for (uint64_t l = 0; l < kLines; ++l) {
    ASSERT_TRUE(Read(l * kLine, buf).ok());
    std::vector<std::byte> want = Pattern(1, l * kLine, kLine);
    std::vector<std::byte> written = Pattern(2, l * kLine + 4096, 8192);
    std::copy(written.begin(), written.end(), want.begin() + 4096);
    EXPECT_EQ(buf, want) << "line " << l;
  }
  EXPECT_EQ(h->cache->counters().read_partial_hits, kLines);
}

TEST_F(SsdFailureTest, FailedFillIsDroppedAndCounted) {
  Make(CacheMode::kWriteThrough, 0);
  h->core_mem.write_now(0, Pattern(3, 0, kLine));
  FailSsdData(ErrorDevice::kWrite);
  std::vector<std::byte> buf(kLine);
  ASSERT_TRUE(Read(0, buf).ok());
  EXPECT_EQ(buf, Pattern(3, 0, kLine));
  EXPECT_EQ(h->cache->counters().ssd_write_errors, 1u);
  EXPECT_EQ(h->cache->counters().errors, 0u);
  ssd->clear();
  ASSERT_TRUE(Read(0, buf).ok());
  EXPECT_EQ(h->cache->counters().read_misses, 2u);  // nothing was installed
}

TEST_F(SsdFailureTest, WbReadOfDirtySectorFailsNeverReturnsTheCoresStaleCopy) {
  Make(CacheMode::kWriteBack, 0);
  h->core_mem.write_now(0, Pattern(4, 0, kLine));
  std::vector<std::byte> buf(kLine);
  ASSERT_TRUE(Read(0, buf).ok());                                  // clean line
  ASSERT_TRUE(Write(8192, Pattern(5, 8192, 4096)).ok());           // one dirty sector
  FailSsdData(ErrorDevice::kRead);
  EXPECT_EQ(Read(0, buf).code(), Status::Code::kIoError);          // the run holds the dirty sector
  std::vector<std::byte> clean(8192);
  ssd->clear();
  FailSsdData(ErrorDevice::kRead);
  ASSERT_TRUE(Read(16384, clean).ok());  // clean sectors of the same line: from the core
  EXPECT_EQ(clean, Pattern(4, 16384, 8192));
  // The failed read dropped the clean copies of its run already: no second SSD read, no error.
  EXPECT_EQ(h->cache->counters().ssd_read_errors, 1u);
  // The dirty sector survives the failure: once the SSD reads again, it is there.
  ssd->clear();
  std::vector<std::byte> dirty(4096);
  ASSERT_TRUE(Read(8192, dirty).ok());
  EXPECT_EQ(dirty, Pattern(5, 8192, 4096));
  EXPECT_EQ(h->cache->counters().dirty_sectors, 1u);
}

TEST_F(SsdFailureTest, WbWriteFallsBackToTheCoreWhenTheSsdWriteFails) {
  Make(CacheMode::kWriteBack, 0);
  ASSERT_TRUE(Write(0, Pattern(6, 0, 8192)).ok());  // dirty sectors 0-1
  FailSsdData(ErrorDevice::kWrite);
  // Over the dirty sectors: the core takes the write, is flushed, then the dirty copy is dropped.
  ASSERT_TRUE(Write(0, Pattern(7, 0, 8192)).ok());
  // A new line: the core takes it.
  ASSERT_TRUE(Write(kLine, Pattern(8, kLine, 4096)).ok());
  EXPECT_EQ(OnCore(0, 8192), Pattern(7, 0, 8192));
  EXPECT_EQ(OnCore(kLine, 4096), Pattern(8, kLine, 4096));
  CacheCounters c = h->cache->counters();
  EXPECT_EQ(c.ssd_write_errors, 2u);
  EXPECT_EQ(c.errors, 0u);
  EXPECT_EQ(c.dirty_sectors, 0u);
  EXPECT_EQ(c.lines_dirty, 0u);
  ssd->clear();
  std::vector<std::byte> buf(8192);
  ASSERT_TRUE(Read(0, buf).ok());
  EXPECT_EQ(buf, Pattern(7, 0, 8192));
}

TEST_F(SsdFailureTest, WtWriteOverDirtySectorsWithSsdFailingKeepsTheNewData) {
  Make(CacheMode::kWriteBack, 0);
  ASSERT_TRUE(Write(0, Pattern(9, 0, 4096)).ok());
  ASSERT_TRUE(testing::SyncSetMode(h->loop, *h->cache, CacheMode::kWriteThrough, false).ok());
  FailSsdData(ErrorDevice::kWrite);
  ASSERT_TRUE(Write(0, Pattern(10, 0, 4096)).ok());
  EXPECT_EQ(h->cache->counters().dirty_sectors, 0u);
  EXPECT_EQ(OnCore(0, 4096), Pattern(10, 0, 4096));
  ssd->clear();
  std::vector<std::byte> buf(4096);
  ASSERT_TRUE(Read(0, buf).ok());
  EXPECT_EQ(buf, Pattern(10, 0, 4096));
}

TEST_F(SsdFailureTest, FlushFailsWhenMetadataCannotPersist) {
  trust_interval = Nanos(0);  // no background persist makes the dirty record durable first
  Make(CacheMode::kWriteBack, 0);
  ASSERT_TRUE(Write(0, Pattern(11, 0, 4096)).ok());
  ssd->fail_nth(1, ErrorDevice::kAnyKind, UINT64_MAX);
  const uint64_t errors = h->cache->counters().errors;
  EXPECT_EQ(testing::SyncFlush(h->loop, *h->cache).code(), Status::Code::kIoError);
  h->loop.run_until_idle();
  EXPECT_EQ(h->cache->counters().ssd_persist_errors, 1u);
  EXPECT_EQ(h->cache->counters().errors, errors + 1);  // a failed FLUSH is a failed request
  ssd->clear();
  EXPECT_TRUE(testing::SyncFlush(h->loop, *h->cache).ok());
  EXPECT_EQ(h->cache->counters().errors, errors + 1);
}

// New data of a dirty sector lives only on the SSD (write-back), or the SSD copy is what a crash
// serves (write-through and write-around keep the sector dirty): its record is already durable,
// but without an SSD flush the data is not. A FLUSH whose SSD flush fails must fail.
TEST_F(SsdFailureTest, FlushFailsWhenDirtyDataWasRewrittenAndTheSsdCannotFlush) {
  for (CacheMode second : {CacheMode::kWriteBack, CacheMode::kWriteThrough,
                           CacheMode::kWriteAround}) {
    SCOPED_TRACE(ModeName(second));
    trust_interval = Nanos(0);
    Make(CacheMode::kWriteBack, 0);
    ASSERT_TRUE(Write(0, Pattern(12, 0, 4096)).ok());
    ASSERT_TRUE(testing::SyncFlush(h->loop, *h->cache).ok());  // the dirty record is durable
    ASSERT_TRUE(testing::SyncSetMode(h->loop, *h->cache, second, false).ok());
    ASSERT_TRUE(Write(0, Pattern(13, 0, 4096)).ok());  // no record changes
    ASSERT_EQ(h->cache->counters().dirty_sectors, 1u);
    ssd->fail_nth(1, ErrorDevice::kFlush, UINT64_MAX);
    EXPECT_EQ(testing::SyncFlush(h->loop, *h->cache).code(), Status::Code::kIoError);
    ssd->clear();
    EXPECT_TRUE(testing::SyncFlush(h->loop, *h->cache).ok());
    h->loop.run_until_idle();
    // Once a persist succeeded, a failed one is forgiven again while nothing dirty is rewritten.
    ssd->fail_nth(1, ErrorDevice::kFlush, UINT64_MAX);
    EXPECT_TRUE(testing::SyncFlush(h->loop, *h->cache).ok());
    ssd->clear();
    h->loop.run_until_idle();
    h->cache.reset();
  }
}

TEST_F(SsdFailureTest, WtFlushSucceedsWhenOnlyCleanRecordsCannotPersist) {
  Make(CacheMode::kWriteThrough, 0);
  Warm();
  ssd->fail_nth(1, ErrorDevice::kAnyKind, UINT64_MAX);  // data, metadata and flushes
  ASSERT_TRUE(Write(0, Pattern(16, 0, 4096)).ok());
  // The write is on the core and nothing dirty depends on the SSD: the FLUSH holds its promise.
  EXPECT_TRUE(testing::SyncFlush(h->loop, *h->cache).ok());
  h->loop.run_until_idle();
  EXPECT_EQ(h->cache->counters().ssd_write_errors, 1u);
  // Three persists failed: the untrust before the write over the warm line (the write went ahead
  // regardless), the FLUSH's, and the trust round the write asked for.
  EXPECT_EQ(h->cache->counters().ssd_persist_errors, 3u);
  EXPECT_EQ(OnCore(0, 4096), Pattern(16, 0, 4096));
}

TEST_F(SsdFailureTest, PastTheThresholdTheCacheRunsAsPassThroughUntilReset) {
  Make(CacheMode::kWriteBack, 3);
  for (uint64_t l = 0; l < 4; ++l) h->core_mem.write_now(l * kLine, Pattern(12, l * kLine, kLine));
  std::vector<std::byte> buf(kLine);
  for (uint64_t l = 1; l < 4; ++l) ASSERT_TRUE(Read(l * kLine, buf).ok());  // clean lines 1-3
  ASSERT_TRUE(Write(0, Pattern(13, 0, 4096)).ok());                         // dirty sector in line 0
  EXPECT_EQ(h->cache->health().state, "ok");
  EXPECT_EQ(h->cache->health().dirty_bytes_at_risk, 0u);
  FailSsdData(ErrorDevice::kRead | ErrorDevice::kWrite);
  ASSERT_TRUE(Read(1 * kLine, buf).ok());
  EXPECT_EQ(h->cache->health().state, "degraded");
  EXPECT_EQ(h->cache->health().dirty_bytes_at_risk, 4096u);
  ASSERT_TRUE(Read(2 * kLine, buf).ok());
  ASSERT_TRUE(Read(3 * kLine, buf).ok());
  EXPECT_EQ(buf, Pattern(12, 3 * kLine, kLine));
  CacheHealth health = h->cache->health();
  EXPECT_EQ(health.state, "failed");
  EXPECT_EQ(health.read_errors, 3u);
  EXPECT_EQ(health.dirty_bytes_at_risk, 4096u);
  EXPECT_EQ(h->cache->counters().ssd_failovers, 1u);

  // Pass-through: clean data from the core without touching the SSD, writes to the core only,
  // and the dirty sector is read from the SSD, failing cleanly instead of returning the core's copy.
  const uint64_t injected = ssd->injected();
  std::vector<std::byte> clean(kLine - 4096);
  ASSERT_TRUE(Read(4096, clean).ok());
  EXPECT_EQ(clean, Pattern(12, 4096, kLine - 4096));
  ASSERT_TRUE(Write(2 * kLine, Pattern(14, 2 * kLine, 4096)).ok());
  EXPECT_EQ(OnCore(2 * kLine, 4096), Pattern(14, 2 * kLine, 4096));
  EXPECT_EQ(ssd->injected(), injected);
  std::vector<std::byte> dirty(4096);
  EXPECT_EQ(Read(0, dirty).code(), Status::Code::kIoError);
  EXPECT_EQ(h->cache->counters().write_bypasses, 1u);

  // The check reads the superblock: refused while the SSD cannot be read there.
  ssd->fail_range(0, 4096, ErrorDevice::kRead);
  Status reset = ResetHealth();
  EXPECT_EQ(reset.ToString(),
            "IoError: ssd: SSD check failed, reading the superblock: ssd: injected read error at offset 0 length 4096");
  EXPECT_EQ(h->cache->health().state, "failed");
  ssd->clear();
  reset = ResetHealth();
  ASSERT_TRUE(reset.ok()) << reset.ToString();
  EXPECT_EQ(h->cache->health().state, "ok");
  EXPECT_EQ(h->cache->health().read_errors, 4u);  // cumulative counts stay
  ASSERT_TRUE(Read(0, dirty).ok());
  EXPECT_EQ(dirty, Pattern(13, 0, 4096));
  ASSERT_TRUE(Read(1 * kLine, buf).ok());
  EXPECT_EQ(h->cache->counters().read_misses, 3u + 1u);  // line 1 was invalidated, refilled now
}

// The log: the first error (with its reason) and each health change at once, further errors at
// most once a second with the count of those left out, and the way back to ok.
TEST_F(SsdFailureTest, ErrorsAndHealthChangesAreLogged) {
  Make(CacheMode::kWriteBack, 3);
  for (uint64_t l = 0; l < 4; ++l) h->core_mem.write_now(l * kLine, Pattern(12, l * kLine, kLine));
  std::vector<std::byte> buf(kLine);
  for (uint64_t l = 1; l < 4; ++l) ASSERT_TRUE(Read(l * kLine, buf).ok());
  ASSERT_TRUE(Write(0, Pattern(13, 0, 4096)).ok());
  std::string log;
  Logger::instance().set_sink([&log](std::string_view line) { log += line; });
  Logger::instance().set_time_source([] { return std::string("T"); });
  FailSsdData(ErrorDevice::kRead | ErrorDevice::kWrite);
  for (uint64_t l = 1; l < 4; ++l) ASSERT_TRUE(Read(l * kLine, buf).ok());  // 3 errors: failed
  h->loop.run_for(std::chrono::seconds(2));
  std::vector<std::byte> dirty(4096);
  EXPECT_EQ(Read(0, dirty).code(), Status::Code::kIoError);  // the 4th error, a second later
  ssd->clear();
  ASSERT_TRUE(ResetHealth().ok());
  Logger::instance().set_sink(nullptr);
  Logger::instance().set_time_source(nullptr);
  EXPECT_EQ(log,
            "ts=T level=error event=ssd_error ssd=ssd op=read error=\"IoError: ssd: injected read "
            "error at offset 196608 length 65536\" unlogged=0\n"
            "ts=T level=warn event=health_change ssd=ssd from=ok to=degraded\n"
            "ts=T level=warn event=health_change ssd=ssd from=degraded to=failed\n"
            "ts=T level=error event=ssd_error ssd=ssd op=read error=\"IoError: ssd: injected read "
            "error at offset 131072 length 4096\" unlogged=2\n"
            "ts=T level=info event=health_change ssd=ssd from=failed to=ok\n");
}

TEST_F(SsdFailureTest, ErrorsOutsideTheWindowDoNotAddUp) {
  Make(CacheMode::kWriteThrough, 2);
  h->core_mem.write_now(0, Pattern(15, 0, 2 * kLine));
  std::vector<std::byte> buf(kLine);
  ASSERT_TRUE(Read(0, buf).ok());
  ASSERT_TRUE(Read(kLine, buf).ok());
  FailSsdData(ErrorDevice::kRead);
  ASSERT_TRUE(Read(0, buf).ok());  // error 1
  h->loop.run_for(std::chrono::seconds(61));
  ASSERT_TRUE(Read(kLine, buf).ok());  // error 2, but the first one left the window
  EXPECT_EQ(h->cache->health().state, "degraded");
  EXPECT_EQ(h->cache->counters().ssd_read_errors, 2u);
}

TEST(SsdFailureOptionsTest, WindowMustBePositive) {
  SimEventLoop loop;
  CacheOptions o;
  o.background_loop = &loop;
  o.ssd_error_window = Nanos(0);
  EXPECT_EQ(o.validate().ToString(), "InvalidArgument: ssd_error_window must be > 0");
}

}  // namespace
}  // namespace tiercache
