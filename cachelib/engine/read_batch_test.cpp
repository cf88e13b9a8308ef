// ReadRun (read_batch.h): whole hits of one shard chunk are read with one SSD operation per part
// contiguous on the SSD, and a run splits exactly at a miss, a partial line or a line whose lock
// must wait; failed merged reads are read again line by line. Counts from the SSD MemoryDevice's
// own stats (one per engine SSD operation: a MemoryDevice merges nothing).
#include <gtest/gtest.h>

#include "cachelib/device/device_wrapper.h"
#include "cachelib/device/error_device.h"
#include "tests/support/cache_fixture.h"

namespace tiercache {
namespace {

using testing::Pattern;
constexpr uint64_t kChunk = 64 * 1024;

// Logs the byte range of every read it passes on.
class ReadLog : public DeviceWrapper {
 public:
  using DeviceWrapper::DeviceWrapper;
  std::vector<std::pair<uint64_t, uint64_t>> reads;  // offset, length

 protected:
  void read_impl(uint64_t offset, std::span<std::byte> buf, IoCallback cb) override {
    reads.emplace_back(offset, buf.size());
    DeviceWrapper::read_impl(offset, buf, std::move(cb));
  }
};

// Stretches of `reads`, in the order given, each read starting where the one before ended.
size_t ContiguousStretches(const std::vector<std::pair<uint64_t, uint64_t>>& reads) {
  size_t n = 0;
  for (size_t i = 0; i < reads.size(); ++i) {
    if (i == 0 || reads[i].first != reads[i - 1].first + reads[i - 1].second) ++n;
  }
  return n;
}

class ReadBatchTest : public ::testing::Test {
 protected:
  enum class SsdWrapper { kNone, kErrors, kReadLog };
  void Make(CacheMode mode, uint32_t line_size, SsdWrapper wrapper = SsdWrapper::kNone) {
    line_ = line_size;
    FormatOptions f;
    f.mode = mode;
    f.line_size = line_size;
    CacheOptions o;
    o.cleaning = "nop";
    o.policies.admission = "always";
    o.policies.sequential = SequentialOptions{.enabled = false};
    o.trust_interval = Nanos(0);
    o.ssd_error_threshold = 0;  // errors are counted; the cache never leaves the path
    h = std::make_unique<testing::CacheHarness>(64 << 20, 64 << 20, f, o);
    h->core_mem.write_now(0, Pattern(1, 0, 8 << 20));
    if (wrapper == SsdWrapper::kErrors) {
      ssd = std::make_unique<ErrorDevice>(h->ssd_mem);
      h->ssd = ssd.get();
    } else if (wrapper == SsdWrapper::kReadLog) {
      read_log = std::make_unique<ReadLog>(h->ssd_mem);
      h->ssd = read_log.get();
    }
    h->open();
  }
  void Read(uint64_t off, uint64_t len) {
    std::vector<std::byte> buf(len);
    ASSERT_TRUE(testing::SyncRead(h->loop, *h->cache, off, buf).ok());
    h->loop.run_until_idle();
    ASSERT_EQ(buf, expected(off, len)) << "at " << off;
  }
  // Core data, with `written` (seed 2) over [written_off, +written_len).
  std::vector<std::byte> expected(uint64_t off, uint64_t len) {
    std::vector<std::byte> out = Pattern(1, off, len);
    const std::vector<std::byte> written = Pattern(2, written_off, written_len);
    const uint64_t end = std::min(off + len, written_off + written_len);
    for (uint64_t b = std::max(off, written_off); b < end; ++b) {
      out[b - off] = written[b - written_off];
    }
    return out;
  }
  void Write(uint64_t off, uint64_t len) {
    written_off = off;
    written_len = len;
    ASSERT_TRUE(testing::SyncWrite(h->loop, *h->cache, off, Pattern(2, off, len)).ok());
    h->loop.run_until_idle();
  }
  uint64_t SsdReads() const { return h->ssd_mem.stats().reads.load(); }
  uint64_t CoreReads() const { return h->core_mem.stats().reads.load(); }

  std::unique_ptr<testing::CacheHarness> h;
  std::unique_ptr<ErrorDevice> ssd;
  std::unique_ptr<ReadLog> read_log;
  uint32_t line_ = 4096;
  uint64_t written_off = 0, written_len = 0;
};

TEST_F(ReadBatchTest, WarmMiBReadIsOneSsdReadPerChunk) {
  Make(CacheMode::kWriteThrough, 4096);
  Read(0, 1 << 20);  // sequential fill: each chunk on 16 consecutive lines of its shard
  const CacheCounters before = h->cache->counters();
  const uint64_t ssd_before = SsdReads(), core_before = CoreReads();
  Read(0, 1 << 20);
  EXPECT_EQ(SsdReads() - ssd_before, 16u);
  EXPECT_EQ(CoreReads() - core_before, 0u);
  const CacheCounters after = h->cache->counters();
  EXPECT_EQ(after.read_hits - before.read_hits, 1u);
  EXPECT_EQ(after.read_hit_bytes - before.read_hit_bytes, 1u << 20);
  EXPECT_EQ(after.read_miss_bytes, before.read_miss_bytes);
  EXPECT_EQ(after.bytes_read_ssd - before.bytes_read_ssd, 1u << 20);
  // A read across a chunk boundary: two runs, one SSD read each.
  const uint64_t across = SsdReads();
  Read(kChunk - 8192, 16384);
  EXPECT_EQ(SsdReads() - across, 2u);
}

// The shards own the SSD's lines in 64 KiB stripes dealt in turn (ShardLines), and the 16 chunks
// of an aligned MiB go to the 16 shards in turn, starting at a shard the MiB's hash picks: filled
// in order, a MiB lies in one stretch of the SSD (starting at shard 0) or two (the stripes from
// its first shard on, then those before it), which the device queue reads as one or two
// operations.
TEST_F(ReadBatchTest, AMibFilledInOrderLiesInAtMostTwoStretchesOfTheSsd) {
  Make(CacheMode::kWriteThrough, 4096, SsdWrapper::kReadLog);
  Read(0, 2 << 20);
  for (uint64_t mib = 0; mib < 2; ++mib) {
    read_log->reads.clear();
    Read(mib << 20, 1 << 20);
    ASSERT_EQ(read_log->reads.size(), 16u);  // one per chunk: a MemoryDevice merges nothing
    EXPECT_EQ(ContiguousStretches(read_log->reads), mib == 0 ? 1u : 2u) << "MiB " << mib;
  }
}

TEST_F(ReadBatchTest, AMissSplitsTheRunWhereItIs) {
  Make(CacheMode::kWriteThrough, 4096);
  for (uint64_t l = 0; l < 16; ++l) {
    if (l != 5) Read(l * 4096, 4096);  // lines 0-4 and 6-15 on 15 consecutive SSD lines
  }
  uint64_t ssd_before = SsdReads(), core_before = CoreReads();
  const CacheCounters before = h->cache->counters();
  Read(0, kChunk);
  EXPECT_EQ(SsdReads() - ssd_before, 2u);  // lines 0-4, lines 6-15
  EXPECT_EQ(CoreReads() - core_before, 1u);  // line 5
  CacheCounters after = h->cache->counters();
  EXPECT_EQ(after.read_partial_hits - before.read_partial_hits, 1u);
  EXPECT_EQ(after.read_hit_bytes - before.read_hit_bytes, 15u * 4096);
  EXPECT_EQ(after.read_miss_bytes - before.read_miss_bytes, 4096u);
  // Line 5 was filled after the others: one stretch of whole hits in three SSD parts.
  ssd_before = SsdReads();
  core_before = CoreReads();
  Read(0, kChunk);
  EXPECT_EQ(SsdReads() - ssd_before, 3u);
  EXPECT_EQ(CoreReads() - core_before, 0u);
  EXPECT_EQ(h->cache->counters().read_hits - after.read_hits, 1u);
}

// 8 KiB lines (two sectors, eight lines per chunk): line 3 holds only its first sector, dirty.
TEST_F(ReadBatchTest, ADirtyPartialLineSplitsTheRunWhereItIs) {
  Make(CacheMode::kWriteBack, 8192);
  Read(0, 3 * 8192);          // lines 0-2
  Write(3 * 8192, 4096);      // line 3, sector 0 dirty, sector 1 not cached
  Read(4 * 8192, 4 * 8192);   // lines 4-7
  const uint64_t ssd_before = SsdReads(), core_before = CoreReads();
  const CacheCounters before = h->cache->counters();
  Read(0, kChunk);
  EXPECT_EQ(SsdReads() - ssd_before, 3u);    // lines 0-2, line 3 sector 0, lines 4-7
  EXPECT_EQ(CoreReads() - core_before, 1u);  // line 3 sector 1
  const CacheCounters after = h->cache->counters();
  EXPECT_EQ(after.read_partial_hits - before.read_partial_hits, 1u);
  EXPECT_EQ(after.read_hit_bytes - before.read_hit_bytes, kChunk - 4096);
  EXPECT_EQ(after.read_miss_bytes - before.read_miss_bytes, 4096u);
}

// A write holds line 5's exclusive lock: the read waits for that line alone, reads the others at
// once, and sees the write's data in line 5.
TEST_F(ReadBatchTest, ALineWhoseLockWaitsIsReadAloneAfterTheWrite) {
  Make(CacheMode::kWriteThrough, 4096);
  Read(0, kChunk);
  written_off = 5 * 4096;
  written_len = 4096;
  const std::vector<std::byte> data = Pattern(2, written_off, written_len);
  EventLoop::ScopedCurrent scope(&h->loop);
  Status write_status = Status::Busy("pending"), read_status = Status::Busy("pending");
  h->cache->write(written_off, data, {}, [&](Status s) { write_status = s; });
  const uint64_t ssd_before = SsdReads();
  std::vector<std::byte> buf(kChunk);
  h->cache->read(0, buf, [&](Status s) { read_status = s; });
  h->loop.run_until_idle();
  ASSERT_TRUE(write_status.ok());
  ASSERT_TRUE(read_status.ok());
  EXPECT_EQ(buf, expected(0, kChunk));
  EXPECT_EQ(SsdReads() - ssd_before, 3u);  // lines 0-4, lines 6-15, then line 5
}

TEST_F(ReadBatchTest, AFailedMergedReadIsReadAgainLineByLine) {
  Make(CacheMode::kWriteThrough, 4096, SsdWrapper::kErrors);
  Read(0, kChunk);
  ssd->fail_nth(1, ErrorDevice::kRead, 1);  // the merged read only
  uint64_t ssd_before = SsdReads();
  Read(0, kChunk);
  EXPECT_EQ(SsdReads() - ssd_before, 16u);  // the failed one never reached the MemoryDevice
  CacheCounters c = h->cache->counters();
  EXPECT_EQ(c.ssd_read_errors, 0u);
  EXPECT_EQ(c.read_hits, 1u);
  EXPECT_EQ(c.bytes_read_ssd, uint64_t(kChunk));
  EXPECT_EQ(c.bytes_read_core, uint64_t(kChunk));  // the warm-up only
  // Every line's own read fails too: each is answered from the core and counted, as when the
  // lines were read one by one.
  ssd->fail_range(h->cache->info().data_offset, 64 << 20, ErrorDevice::kRead);
  Read(0, kChunk);
  c = h->cache->counters();
  EXPECT_EQ(c.ssd_read_errors, 16u);
  EXPECT_EQ(c.errors, 0u);
  EXPECT_EQ(c.bytes_read_ssd, 2u * kChunk);
  EXPECT_EQ(c.bytes_read_core, 2u * kChunk);
  ssd->clear();
  ssd_before = SsdReads();
  Read(0, kChunk);  // the clean copies were dropped: a miss
  EXPECT_EQ(SsdReads() - ssd_before, 0u);
  EXPECT_EQ(h->cache->counters().read_misses, 2u);
}

}  // namespace
}  // namespace tiercache
