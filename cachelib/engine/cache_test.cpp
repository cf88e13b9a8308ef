#include "cachelib/engine/cache.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "cachelib/device/device_wrapper.h"
#include "cachelib/device/fault_injecting_device.h"
#include "cachelib/engine/engine.h"
#include "cachelib/metadata/format.h"
#include "tests/support/cache_fixture.h"

namespace tiercache {
namespace {

using testing::CacheHarness;
using testing::CounterOf;
using testing::Pattern;

constexpr uint64_t kLine = 64 * 1024;

CacheOptions Deterministic() {
  CacheOptions o;
  o.shards = 4;
  o.cleaning = "nop";  // dirty data stays until a test cleans it
  return o;
}

// 64 KiB lines of 16 sectors: these tests check per-sector validity within a line.
FormatOptions Mode(CacheMode m) {
  FormatOptions f;
  f.mode = m;
  f.line_size = 64 * 1024;
  return f;
}

class CacheTest : public ::testing::Test {
 protected:
  void Make(CacheMode mode, uint64_t ssd = 8 << 20, uint64_t core = 64 << 20) {
    h = std::make_unique<CacheHarness>(ssd, core, Mode(mode), Deterministic());
    h->open();
  }
  std::vector<std::byte> Read(uint64_t off, size_t len) {
    std::vector<std::byte> out(len);
    Status s = testing::SyncRead(h->loop, *h->cache, off, out);
    EXPECT_TRUE(s.ok()) << s.ToString();
    h->loop.run_until_idle();  // let background fills finish
    return out;
  }
  void Write(uint64_t off, const std::vector<std::byte>& data, WriteFlags f = {}) {
    Status s = testing::SyncWrite(h->loop, *h->cache, off, data, f);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  std::vector<std::byte> Core(uint64_t off, size_t len) {
    std::vector<std::byte> out(len);
    h->core_mem.read_now(off, out);
    return out;
  }
  CacheCounters C() { return h->cache->counters(); }
  // One shard of 4 KiB lines, no timed trust rounds: `data` read in from offset 0, so every line
  // it fills is untrusted and only an asked trust round (trust_batch entries per hold) trusts it.
  void MakeUntrusted(const std::vector<std::byte>& data, uint32_t trust_batch) {
    CacheOptions o = Deterministic();
    o.shards = 1;
    o.policies.admission = "always";
    o.policies.sequential = SequentialOptions{.enabled = false};
    o.trust_interval = Nanos(0);
    o.trust_batch = trust_batch;
    h = std::make_unique<CacheHarness>(8 << 20, 64 << 20, FormatOptions{}, o);
    h->open();
    h->core_mem.write_now(0, data);
    EXPECT_EQ(Read(0, data.size()), data);
    ASSERT_EQ(C().lines_untrusted, data.size() / 4096);
  }
  // One shard of 4 KiB lines behind `admission`, 4 KiB cutoffs, and a core holding
  // Pattern(seed) over a loop of twice the cache; returns the loop's length in blocks.
  uint64_t MakeForALoop(const char* admission, uint64_t seed) {
    CacheOptions o = Deterministic();
    o.shards = 1;
    o.policies.admission = admission;
    o.policies.sequential = kLoopCutoffs;
    h = std::make_unique<CacheHarness>(8 << 20, 64 << 20, FormatOptions{}, o);
    h->open();
    const uint64_t blocks = 2 * C().lines_total;
    h->core_mem.write_now(0, Pattern(seed, 0, blocks * 4096));
    return blocks;
  }
  // A write-back cache holding line 0 clean (Pattern(seed), read in) and a 4 KiB block of line
  // 5 dirty (Pattern(seed + 1)); returns both.
  std::pair<std::vector<std::byte>, std::vector<std::byte>> CleanLineAndDirtyLine(uint64_t seed) {
    Make(CacheMode::kWriteBack);
    auto clean = Pattern(seed, 0, kLine);
    h->core_mem.write_now(0, clean);
    EXPECT_EQ(Read(0, kLine), clean);
    auto dirty = Pattern(seed + 1, 5 * kLine, 4096);
    Write(5 * kLine, dirty);
    return {clean, dirty};
  }
  // After a clean close and open: `lines_used` lines, one dirty; line 0 reads `line0` with
  // `read_hits` hits, and the dirty block its data.
  void ExpectCleanReopen(uint64_t lines_used, const std::vector<std::byte>& line0,
                         uint64_t read_hits, const std::vector<std::byte>& dirty) {
    EXPECT_TRUE(h->cache->info().was_clean_shutdown);
    EXPECT_EQ(C().lines_used, lines_used);
    EXPECT_EQ(C().lines_dirty, 1u);
    EXPECT_EQ(Read(0, kLine), line0);
    EXPECT_EQ(C().read_hits, read_hits);
    EXPECT_EQ(Read(5 * kLine, 4096), dirty);
  }
  static constexpr SequentialOptions kLoopCutoffs{.read_cutoff_bytes = 4096,
                                                  .write_cutoff_bytes = 4096};

  std::unique_ptr<CacheHarness> h;
};

TEST_F(CacheTest, ReadMissFillsThenHits) {
  Make(CacheMode::kWriteThrough);
  auto data = Pattern(1, 0, 2 * kLine);
  h->core_mem.write_now(0, data);
  EXPECT_EQ(Read(0, 2 * kLine), data);
  EXPECT_EQ(C().read_misses, 1u);
  EXPECT_EQ(C().bytes_read_core, 2 * kLine);
  EXPECT_EQ(C().bytes_written_ssd, 2 * kLine);
  EXPECT_EQ(C().lines_used, 2u);
  EXPECT_EQ(Read(0, 2 * kLine), data);
  EXPECT_EQ(C().read_hits, 1u);
  EXPECT_EQ(C().bytes_read_ssd, 2 * kLine);
  EXPECT_EQ(C().bytes_read_core, 2 * kLine);
}

TEST_F(CacheTest, PartialHitReadsEachSectorFromTheRightPlace) {
  Make(CacheMode::kWriteThrough);
  auto data = Pattern(2, 0, kLine);
  h->core_mem.write_now(0, data);
  EXPECT_EQ(Read(8192, 4096), std::vector<std::byte>(data.begin() + 8192, data.begin() + 12288));
  EXPECT_EQ(Read(0, kLine), data);
  CacheCounters c = C();
  EXPECT_EQ(c.read_misses, 1u);
  EXPECT_EQ(c.read_partial_hits, 1u);
  EXPECT_EQ(c.bytes_read_ssd, 4096u);
  EXPECT_EQ(c.bytes_read_core, 4096u + kLine - 4096);
  EXPECT_EQ(Read(0, kLine), data);
  EXPECT_EQ(C().read_hits, 1u);
}

TEST_F(CacheTest, WriteThroughWritesBothAndHits) {
  Make(CacheMode::kWriteThrough);
  auto data = Pattern(3, 4096, 3 * 4096);
  Write(4096, data);
  EXPECT_EQ(Core(4096, data.size()), data);
  EXPECT_EQ(C().write_misses, 1u);
  EXPECT_EQ(C().lines_dirty, 0u);
  EXPECT_EQ(Read(4096, data.size()), data);
  EXPECT_EQ(C().read_hits, 1u);
  Write(4096, data);
  EXPECT_EQ(C().write_hits, 1u);
}

TEST_F(CacheTest, WriteBackKeepsDataOnSsdUntilCleaned) {
  Make(CacheMode::kWriteBack);
  auto data = Pattern(4, kLine + 8192, 8192);
  Write(kLine + 8192, data);
  EXPECT_EQ(Core(kLine + 8192, 8192), std::vector<std::byte>(8192));
  EXPECT_EQ(C().lines_dirty, 1u);
  EXPECT_EQ(C().dirty_sectors, 2u);
  EXPECT_EQ(C().bytes_written_core, 0u);
  EXPECT_EQ(Read(kLine + 8192, 8192), data);
  EXPECT_EQ(C().read_hits, 1u);
  ASSERT_TRUE(testing::SyncCleanAll(h->loop, *h->cache).ok());
  EXPECT_EQ(Core(kLine + 8192, 8192), data);
  CacheCounters c = C();
  EXPECT_EQ(c.lines_dirty, 0u);
  EXPECT_EQ(c.dirty_sectors, 0u);
  EXPECT_EQ(c.cleaned_lines, 1u);
  EXPECT_EQ(c.cleaner_writes, 1u);
  EXPECT_EQ(Read(kLine + 8192, 8192), data);  // still cached, now clean
  EXPECT_EQ(C().read_hits, 2u);
}

TEST_F(CacheTest, WriteAroundInvalidatesCachedCopy) {
  Make(CacheMode::kWriteAround);
  auto old_data = Pattern(5, 0, kLine);
  h->core_mem.write_now(0, old_data);
  EXPECT_EQ(Read(0, kLine), old_data);  // cached now
  auto new_data = Pattern(6, 4096, 4096);
  Write(4096, new_data);
  EXPECT_EQ(C().write_bypasses, 1u);
  EXPECT_EQ(Core(4096, 4096), new_data);
  auto expect = old_data;
  std::copy(new_data.begin(), new_data.end(), expect.begin() + 4096);
  EXPECT_EQ(Read(0, kLine), expect);
  EXPECT_EQ(C().read_partial_hits, 1u);
}

TEST_F(CacheTest, PassThroughStillServesAndCleansDirtyData) {
  Make(CacheMode::kWriteBack);
  auto dirty = Pattern(7, 0, 8192);
  Write(0, dirty);
  ASSERT_TRUE(testing::SyncSetMode(h->loop, *h->cache, CacheMode::kPassThrough, false).ok());
  EXPECT_EQ(h->cache->mode(), CacheMode::kPassThrough);
  EXPECT_EQ(Read(0, 8192), dirty);  // never the stale core copy
  auto over = Pattern(8, 4096, 4096);
  Write(4096, over);  // pass-through write over a dirty sector updates both copies
  auto expect = dirty;
  std::copy(over.begin(), over.end(), expect.begin() + 4096);
  EXPECT_EQ(Read(0, 8192), expect);
  EXPECT_EQ(Read(kLine, 4096), std::vector<std::byte>(4096));
  EXPECT_EQ(C().read_bypasses, 1u);
  ASSERT_TRUE(testing::SyncCleanAll(h->loop, *h->cache).ok());
  EXPECT_EQ(Core(0, 8192), expect);
  EXPECT_EQ(C().lines_dirty, 0u);
}

TEST_F(CacheTest, SwitchingAwayFromWriteBackWithDrainCleansEverything) {
  Make(CacheMode::kWriteBack);
  for (int i = 0; i < 10; ++i) Write(i * kLine * 3, Pattern(9, i * kLine * 3, 4096));
  EXPECT_EQ(C().lines_dirty, 10u);
  ASSERT_TRUE(testing::SyncSetMode(h->loop, *h->cache, CacheMode::kWriteThrough, true).ok());
  EXPECT_EQ(C().lines_dirty, 0u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(Core(i * kLine * 3, 4096), Pattern(9, i * kLine * 3, 4096));
}

// Dirty data outlives wb (a switch without --drain, a crash during a drain): a drain asked when
// switching from any mode writes it back too (it used to drain only when leaving wb).
TEST_F(CacheTest, ADrainFromAModeOtherThanWriteBackCleansEverything) {
  Make(CacheMode::kWriteBack);
  for (int i = 0; i < 10; ++i) Write(i * kLine * 3, Pattern(10, i * kLine * 3, 4096));
  ASSERT_TRUE(testing::SyncSetMode(h->loop, *h->cache, CacheMode::kPassThrough, false).ok());
  ASSERT_EQ(C().lines_dirty, 10u);
  ASSERT_TRUE(testing::SyncSetMode(h->loop, *h->cache, CacheMode::kWriteThrough, true).ok());
  EXPECT_EQ(C().lines_dirty, 0u);
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(Core(i * kLine * 3, 4096), Pattern(10, i * kLine * 3, 4096));
  }
}

TEST_F(CacheTest, TrimAndWriteZeroes) {
  Make(CacheMode::kWriteBack);
  auto data = Pattern(10, 0, kLine);
  h->core_mem.write_now(0, data);
  Write(0, Pattern(11, 0, kLine));
  ASSERT_TRUE(testing::SyncWriteZeroes(h->loop, *h->cache, 4096, 8192).ok());
  auto got = Read(0, kLine);
  EXPECT_EQ(std::vector<std::byte>(got.begin() + 4096, got.begin() + 12288),
            std::vector<std::byte>(8192));
  ASSERT_TRUE(testing::SyncDiscard(h->loop, *h->cache, 0, kLine).ok());
  EXPECT_EQ(C().lines_dirty, 0u);
  EXPECT_EQ(Read(0, kLine), std::vector<std::byte>(kLine));  // MemoryDevice discards to zeros
  EXPECT_EQ(C().discards, 1u);
  EXPECT_EQ(C().write_zeroes, 1u);
}

// A line a TRIM empties is free for other data (lines_used drops at once); one a TRIM leaves
// sectors in stays. A line whose dirty record was durable waits in limbo for the persist that
// frees its record, and a miss of its block meanwhile waits for that persist, so no record ever
// maps the reused line to the trimmed block after a crash.
TEST_F(CacheTest, TrimFreesTheLinesItEmpties) {
  Make(CacheMode::kWriteBack);
  const auto data = Pattern(15, 0, 4 * kLine);
  h->core_mem.write_now(0, data);
  EXPECT_EQ(Read(0, 3 * kLine), std::vector<std::byte>(data.begin(), data.begin() + 3 * kLine));
  const auto dirty = Pattern(16, 3 * kLine, kLine);
  Write(3 * kLine, dirty);
  ASSERT_TRUE(testing::SyncFlush(h->loop, *h->cache).ok());  // line 3's dirty record durable
  ASSERT_EQ(C().lines_used, 4u);

  ASSERT_TRUE(testing::SyncDiscard(h->loop, *h->cache, kLine, kLine).ok());
  EXPECT_EQ(C().lines_used, 3u);
  ASSERT_TRUE(testing::SyncDiscard(h->loop, *h->cache, 2 * kLine, 4096).ok());
  EXPECT_EQ(C().lines_used, 3u);  // line 2 keeps 15 sectors
  ASSERT_TRUE(testing::SyncDiscard(h->loop, *h->cache, 3 * kLine, kLine).ok());
  EXPECT_EQ(C().lines_used, 2u);
  EXPECT_EQ(C().lines_dirty, 0u);

  // Line 3's block again, at once: its old line is in limbo until a persist.
  const auto again = Pattern(17, 3 * kLine, kLine);
  Write(3 * kLine, again);
  EXPECT_EQ(C().lines_used, 3u);
  EXPECT_EQ(Read(3 * kLine, kLine), again);
  const uint64_t misses = C().read_misses;
  h->core_mem.write_now(kLine, Pattern(18, kLine, kLine));  // trimmed: read from the core again
  EXPECT_EQ(Read(kLine, kLine), Pattern(18, kLine, kLine));
  EXPECT_EQ(C().read_misses, misses + 1);
  EXPECT_EQ(C().lines_used, 4u);

  h->crash_restart();
  EXPECT_EQ(Read(0, kLine), std::vector<std::byte>(data.begin(), data.begin() + kLine));
  EXPECT_EQ(Read(kLine, kLine), Pattern(18, kLine, kLine));
  EXPECT_EQ(Read(3 * kLine, kLine), again);
  h->restart();
  EXPECT_EQ(Read(3 * kLine, kLine), again);
  EXPECT_EQ(Read(kLine, kLine), Pattern(18, kLine, kLine));
}

TEST_F(CacheTest, BadInputsAreRejectedAndChangeNothing) {
  Make(CacheMode::kWriteBack);
  std::vector<std::byte> buf(4096, std::byte{1});
  const uint64_t size = h->cache->size();
  EXPECT_EQ(testing::SyncRead(h->loop, *h->cache, size, buf).code(),
            Status::Code::kInvalidArgument);
  EXPECT_EQ(testing::SyncWrite(h->loop, *h->cache, size - 2000, buf).code(),
            Status::Code::kInvalidArgument);  // misaligned beats past-the-end
  EXPECT_EQ(testing::SyncWrite(h->loop, *h->cache, size, buf).code(), Status::Code::kNoSpace);
  // 512-byte sectors: a write that starts inside the volume but runs past its end.
  EXPECT_EQ(testing::SyncWrite(h->loop, *h->cache, size - 2048, buf).code(),
            Status::Code::kNoSpace);
  EXPECT_EQ(testing::SyncWrite(h->loop, *h->cache, 100, buf).code(),
            Status::Code::kInvalidArgument);
  EXPECT_EQ(testing::SyncRead(h->loop, *h->cache, 0, std::span<std::byte>()).code(),
            Status::Code::kInvalidArgument);
  std::vector<std::byte> huge((32 << 20) + 4096);
  EXPECT_EQ(testing::SyncWrite(h->loop, *h->cache, 0, huge).code(),
            Status::Code::kInvalidArgument);
  EXPECT_EQ(testing::SyncDiscard(h->loop, *h->cache, UINT64_MAX & ~4095ull, 8192).code(),
            Status::Code::kInvalidArgument);
  CacheCounters c = C();
  EXPECT_EQ(c.lines_used, 0u);
  EXPECT_EQ(c.write_hits + c.write_misses + c.read_hits + c.read_misses, 0u);
  EXPECT_EQ(h->cache->stats().rejected.load(), 8u);
  EXPECT_EQ(h->core_mem.memory_bytes(), 0u);
}

TEST_F(CacheTest, CleanRestartIsWarmAndKeepsDirtyData) {
  const auto [clean, dirty] = CleanLineAndDirtyLine(12);
  h->restart();
  ExpectCleanReopen(/*lines_used=*/2, clean, /*read_hits=*/1, dirty);
  EXPECT_EQ(Core(5 * kLine, 4096), std::vector<std::byte>(4096));
}

// A detach closes with forget_clean: the core may be changed alone before the next start, so
// that start keeps only dirty data (none after a detach's write-back; here one line, to show it
// is kept) and reads the rest from the core, never a stale clean copy.
TEST_F(CacheTest, CloseForgettingCleanCopiesKeepsOnlyDirtyData) {
  const auto [clean, dirty] = CleanLineAndDirtyLine(14);
  h->loop.run_until_idle();  // the clean line trusted by a round
  ASSERT_EQ(C().lines_used, 2u);
  Status closed = testing::SyncClose(h->loop, *h->cache, /*forget_clean=*/true);
  ASSERT_TRUE(closed.ok()) << closed.ToString();
  auto changed = Pattern(16, 0, kLine);  // the core used alone meanwhile
  h->core_mem.write_now(0, changed);
  h->open();
  ExpectCleanReopen(/*lines_used=*/1, changed, /*read_hits=*/0, dirty);
}

// A cache made by format version 6 gave each shard one contiguous range of lines, and its records
// sit where that layout put them: it must keep that layout (shard_stripe_lines 0) after this build
// rewrites it as version 7, or its lines would be loaded into shards that never look there. A
// new cache gets 64 KiB stripes.
TEST_F(CacheTest, AVersion6CacheKeepsOneRangeOfLinesPerShard) {
  FormatOptions f;
  f.mode = CacheMode::kWriteBack;
  CacheOptions o = Deterministic();
  o.shards = 16;
  h = std::make_unique<CacheHarness>(64 << 20, 64 << 20, f, o);
  std::vector<std::byte> copy(format::kBlockSize);
  for (uint64_t at : format::kSuperblockOffset) {
    h->ssd_mem.read_now(at, copy);
    EXPECT_EQ(format::GetU32(copy, format::sb::kShardStripeLines), 16u);  // 64 KiB of 4 KiB lines
    format::PutU32(copy, format::sb::kVersion, 6);
    format::PutU32(copy, format::sb::kShardStripeLines, 0);
    format::PutU64(copy, format::sb::kChecksum, format::Checksum(std::span(copy).subspan(16)));
    h->ssd_mem.write_now(at, copy);
  }
  h->open();
  const auto clean = Pattern(21, 0, 2 << 20), dirty = Pattern(22, 4 << 20, 2 << 20);
  h->core_mem.write_now(0, clean);
  EXPECT_EQ(Read(0, clean.size()), clean);
  Write(4 << 20, dirty);
  h->restart();
  EXPECT_EQ(h->cache->info().version, 7u);
  EXPECT_EQ(h->cache->info().shard_stripe_lines, 0u);
  // The MiB at 0's second chunk went to shard 1 (group 0 is not rotated), whose first line is the
  // first of the second of 16 ranges.
  const uint64_t range = (h->cache->info().line_count + 15) / 16;
  std::vector<std::byte> on_ssd(4096);
  h->ssd_mem.read_now(h->cache->info().data_offset + range * 4096, on_ssd);
  EXPECT_EQ(on_ssd, Pattern(21, 64 << 10, 4096));
  EXPECT_EQ(C().lines_used, 1024u);
  EXPECT_EQ(C().lines_dirty, 512u);
  const uint64_t core_reads = h->core_mem.stats().reads.load();
  EXPECT_EQ(Read(0, clean.size()), clean);
  EXPECT_EQ(Read(4 << 20, dirty.size()), dirty);
  EXPECT_EQ(h->core_mem.stats().reads.load(), core_reads);  // every block came from the SSD
  EXPECT_EQ(C().read_hits, 2u);
  EXPECT_EQ(Core(4 << 20, 4096), std::vector<std::byte>(4096));
}

// Warm after a crash: clean lines whose data and record were durable stay valid; a line evicted
// (limbo) is not reused before its free record is durable, so no record maps stale data.
TEST_F(CacheTest, CrashKeepsFlushedDirtyDataAndDurableCleanLines) {
  CacheOptions o = Deterministic();
  o.policies.admission = "always";
  o.policies.sequential = SequentialOptions{.enabled = false};
  h = std::make_unique<CacheHarness>(8 << 20, 64 << 20, Mode(CacheMode::kWriteBack), o);
  h->open();
  auto clean = Pattern(14, 0, 2 * kLine);
  h->core_mem.write_now(0, clean);
  EXPECT_EQ(Read(0, 2 * kLine), clean);
  auto dirty = Pattern(15, 7 * kLine, 8192);
  Write(7 * kLine, dirty);
  ASSERT_TRUE(testing::SyncFlush(h->loop, *h->cache).ok());
  ASSERT_EQ(C().lines_used, 3u);
  h->crash_restart();
  EXPECT_FALSE(h->cache->info().was_clean_shutdown);
  EXPECT_EQ(C().lines_used, 3u);
  EXPECT_EQ(C().lines_dirty, 1u);
  EXPECT_EQ(Read(7 * kLine, 8192), dirty);
  EXPECT_EQ(Read(0, 2 * kLine), clean);
  EXPECT_EQ(C().read_misses, 0u);
  EXPECT_EQ(C().read_hits, 2u);
}

// A full cache keeps one reserve line per 256 (at least one) durably free: a miss takes it while
// its victim waits in limbo for a persist to make its free record durable (the victim's slot
// takes no other block's data before that); then the victim's line is the new reserve.
TEST_F(CacheTest, MissOnAFullCacheUsesTheReserveWhileTheVictimWaitsForItsFreeRecord) {
  CacheOptions o = Deterministic();
  o.policies.admission = "always";
  o.policies.sequential = SequentialOptions{.enabled = false};
  o.shards = 1;
  h = std::make_unique<CacheHarness>(8 << 20, 64 << 20, Mode(CacheMode::kWriteThrough), o);
  h->open();
  const uint64_t lines = C().lines_total, capacity = lines - 1;  // 127 lines: reserve 1
  auto data = Pattern(40, 0, (lines + 2) * kLine);
  h->core_mem.write_now(0, data);
  for (uint64_t l = 0; l < capacity; ++l) Read(l * kLine, kLine);
  ASSERT_EQ(C().lines_used, capacity);
  ASSERT_EQ(C().evictions, 0u);
  ASSERT_TRUE(testing::SyncFlush(h->loop, *h->cache).ok());
  for (uint64_t l = capacity; l < capacity + 3; ++l) {
    EXPECT_EQ(Read(l * kLine, kLine),
              std::vector<std::byte>(data.begin() + l * kLine, data.begin() + (l + 1) * kLine));
  }
  EXPECT_EQ(C().evictions, 3u);
  EXPECT_EQ(C().lines_used, capacity);
  // Warm after a crash: every line whose record was durable, the three victims' free records
  // included, and the bytes are right.
  h->crash_restart();
  // No FLUSH since the three misses: a trust round made their records claim them (within
  // trust_interval, which Read()'s run_until_idle lets pass in virtual time).
  EXPECT_EQ(C().lines_used, capacity);
  std::vector<std::byte> got((lines + 2) * kLine);
  ASSERT_TRUE(testing::SyncRead(h->loop, *h->cache, 0, got).ok());
  EXPECT_TRUE(got == data);
}

// Counts the flushes of the device it wraps, and records how many the SSD had seen when each
// write reached it: tells whether a persist came between a request and its core write.
class FlushOrderDevice : public DeviceWrapper {
 public:
  FlushOrderDevice(Device& target, const FlushOrderDevice* ssd)
      : DeviceWrapper(target), ssd_(ssd) {}
  uint64_t flushes = 0;
  std::vector<uint64_t> ssd_flushes_at_write;

 protected:
  void write_impl(uint64_t offset, std::span<const std::byte> buf, WriteFlags flags,
                  IoCallback cb) override {
    if (ssd_ != nullptr) ssd_flushes_at_write.push_back(ssd_->flushes);
    DeviceWrapper::write_impl(offset, buf, flags, std::move(cb));
  }
  void flush_impl(IoCallback cb) override {
    ++flushes;
    DeviceWrapper::flush_impl(std::move(cb));
  }

 private:
  const FlushOrderDevice* ssd_;
};

// A trusted clean line (a trust round covered it) is made durably untrusted before a write
// changes it: write-through and write-around issue their core write only after a persist. A
// second write to the now untrusted line does not wait. The crash after it forgets the line
// (untrusted) instead of trusting a copy that may differ from the core.
TEST_F(CacheTest, WriteOverATrustedLineWaitsForItsUntrustToBeDurable) {
  for (CacheMode mode : {CacheMode::kWriteThrough, CacheMode::kWriteAround}) {
    SCOPED_TRACE(ModeName(mode));
    CacheOptions o = Deterministic();
    o.policies.admission = "always";
    o.policies.sequential = SequentialOptions{.enabled = false};
    h = std::make_unique<CacheHarness>(8 << 20, 64 << 20, Mode(mode), o);
    FlushOrderDevice ssd(h->ssd_mem, nullptr), core(h->core_mem, &ssd);
    h->ssd = &ssd;
    h->core = &core;
    h->open();
    auto old_data = Pattern(50, 0, kLine);
    h->core_mem.write_now(0, old_data);
    EXPECT_EQ(Read(0, kLine), old_data);  // filled, then trusted by a round
    ASSERT_EQ(C().lines_used, 1u);
    ASSERT_EQ(C().lines_untrusted, 0u);
    const uint64_t before = ssd.flushes;
    auto new_data = Pattern(51, 0, 4096);
    Write(0, new_data);
    ASSERT_EQ(core.ssd_flushes_at_write.size(), 1u);
    EXPECT_GT(core.ssd_flushes_at_write[0], before);  // the untrust persisted first
    const uint64_t after_first = ssd.flushes;
    Write(4096, new_data);
    ASSERT_EQ(core.ssd_flushes_at_write.size(), 2u);
    EXPECT_EQ(core.ssd_flushes_at_write[1], after_first);  // already durably untrusted
    // Crash before any trust round: the line's clean copies are forgotten, and what is read is
    // the core's (both writes landed on the memory devices).
    h->crash_restart();
    EXPECT_EQ(C().lines_used, 0u);
    std::vector<std::byte> want = old_data;
    std::copy(new_data.begin(), new_data.end(), want.begin());
    std::copy(new_data.begin(), new_data.end(), want.begin() + 4096);
    EXPECT_EQ(Read(0, kLine), want);
    h->cache.reset();  // the restart opened on the wrappers: drop it before they go
  }
}

// A line only written through is left untrusted by trust rounds: a write-through rewrite of it
// waits for no persist (trusting it made every rewrite wait for one: realapp-install's warm wt
// passes ran 1.7x slower than the bare HDD). A read makes it a candidate again, and the next
// round trusts it; a write then waits for the untrust as before. A crash forgets it meanwhile.
TEST_F(CacheTest, ALineOnlyWrittenThroughStaysUntrustedUntilRead) {
  CacheOptions o = Deterministic();
  o.policies.admission = "always";
  o.policies.sequential = SequentialOptions{.enabled = false};
  h = std::make_unique<CacheHarness>(8 << 20, 64 << 20, Mode(CacheMode::kWriteThrough), o);
  FlushOrderDevice ssd(h->ssd_mem, nullptr), core(h->core_mem, &ssd);
  h->ssd = &ssd;
  h->core = &core;
  h->open();
  const auto first = Pattern(52, 0, kLine);
  Write(0, first);
  h->loop.run_until_idle();  // the trust round the write asked for
  ASSERT_EQ(C().lines_used, 1u);
  EXPECT_EQ(C().lines_untrusted, 1u);
  EXPECT_EQ(h->cache->last_trust_round().trusted, 0u);
  const auto second = Pattern(53, 0, 4096);
  uint64_t before = ssd.flushes;
  Write(0, second);
  ASSERT_EQ(core.ssd_flushes_at_write.size(), 2u);
  EXPECT_EQ(core.ssd_flushes_at_write[1], before);  // straight to the core: nothing to untrust
  std::vector<std::byte> want = first;
  std::copy(second.begin(), second.end(), want.begin());
  EXPECT_EQ(Read(0, kLine), want);  // a hit; the round it asks for trusts the line
  EXPECT_EQ(C().read_hits, 1u);
  EXPECT_EQ(C().lines_untrusted, 0u);
  EXPECT_EQ(h->cache->last_trust_round().trusted, 1u);
  before = ssd.flushes;
  Write(4096, second);
  ASSERT_EQ(core.ssd_flushes_at_write.size(), 3u);
  EXPECT_GT(core.ssd_flushes_at_write[2], before);  // trusted again: the untrust persists first
  std::copy(second.begin(), second.end(), want.begin() + 4096);
  h->crash_restart();
  EXPECT_EQ(C().lines_used, 0u);
  EXPECT_EQ(Read(0, kLine), want);
  h->cache.reset();  // the restart opened on the wrappers: drop it before they go
}

// A read that misses part of a write-only line fills it: read data, as a hit's is, so the fill
// clears the mark and lists the line, and the next round trusts it (the fill's untrust found the
// line untrusted already and listed nothing: it stayed untrusted until a later hit, and a crash
// forgot the data read).
TEST_F(CacheTest, AReadThatFillsAWriteOnlyLineGetsItTrusted) {
  CacheOptions o = Deterministic();
  o.policies.admission = "always";
  o.policies.sequential = SequentialOptions{.enabled = false};
  h = std::make_unique<CacheHarness>(8 << 20, 64 << 20, Mode(CacheMode::kWriteThrough), o);
  h->open();
  const auto core_data = Pattern(54, 0, kLine);
  h->core_mem.write_now(0, core_data);
  const auto written = Pattern(55, 0, 4096);
  Write(0, written);
  h->loop.run_until_idle();  // the round the write asked for leaves the line out
  ASSERT_EQ(C().lines_used, 1u);
  ASSERT_EQ(C().lines_untrusted, 1u);
  ASSERT_EQ(h->cache->last_trust_round().trusted, 0u);
  const std::vector<std::byte> rest(core_data.begin() + 4096, core_data.end());
  EXPECT_EQ(Read(4096, kLine - 4096), rest);  // a miss: filled after the reply
  EXPECT_EQ(C().read_hits, 0u);
  h->loop.run_until_idle();
  EXPECT_EQ(C().lines_untrusted, 0u);
  EXPECT_EQ(h->cache->last_trust_round().trusted, 1u);
  h->crash_restart();
  EXPECT_EQ(C().lines_used, 1u);  // kept warm: the whole line is on the SSD, trusted
  std::vector<std::byte> want = written;
  want.insert(want.end(), rest.begin(), rest.end());
  EXPECT_EQ(Read(0, kLine), want);
  EXPECT_EQ(C().read_hits, 1u);
}

// The hole the untrust closes: a write over a trusted clean line whose SSD half (or the SSD copy
// left in place) reverts in a power cut while its core half survives, unflushed. Were the line
// still trusted on the SSD, the reopened cache would serve the old copy while the core holds the
// new data, and the sector would change again once the line is evicted.
TEST_F(CacheTest, PowerCutAfterAWriteOverATrustedLineNeverServesTheOldCopy) {
  for (CacheMode mode : {CacheMode::kWriteThrough, CacheMode::kWriteAround,
                         CacheMode::kPassThrough}) {
    SCOPED_TRACE(ModeName(mode));
    CacheOptions o = Deterministic();
    o.policies.admission = "always";
    o.policies.sequential = SequentialOptions{.enabled = false};
    h = std::make_unique<CacheHarness>(8 << 20, 64 << 20, Mode(CacheMode::kWriteThrough), o);
    FaultInjectingDevice ssd(h->ssd_mem, "ssd");  // the core keeps every write at once
    h->ssd = &ssd;
    h->open();
    auto old_data = Pattern(60, 0, kLine);
    h->core_mem.write_now(0, old_data);
    EXPECT_EQ(Read(0, kLine), old_data);
    ASSERT_EQ(C().lines_untrusted, 0u);
    ASSERT_TRUE(testing::SyncSetMode(h->loop, *h->cache, mode, false).ok());
    auto new_data = Pattern(61, 0, 4096);
    Write(0, new_data);
    int cut = 0;
    {
      EventLoop::ScopedCurrent scope(&h->loop);
      ssd.power_cut([&](Status s) { cut += s.ok(); });
    }
    h->loop.run_until([&] { return cut == 1; });
    (void)testing::SyncClose(h->loop, *h->cache);  // fails: the SSD is off
    h->cache.reset();
    ssd.reset();
    h->open();
    EXPECT_EQ(Read(0, 4096), new_data);
    ASSERT_TRUE(testing::SyncCleanAll(h->loop, *h->cache).ok());
    EXPECT_EQ(Read(0, 4096), Core(0, 4096));
    h->cache.reset();  // opened on the wrapper: drop it before the wrapper goes
  }
}

// Takes a picture of both memory devices when the first write to the wrapped core completes:
// what a process crash right after that write would leave on the media.
class SnapshotAtCoreWrite : public DeviceWrapper {
 public:
  SnapshotAtCoreWrite(MemoryDevice& core, MemoryDevice& ssd) : DeviceWrapper(core), core_(core),
                                                              ssd_(ssd) {}
  std::optional<MemoryDevice::Snapshot> core_at, ssd_at;

 protected:
  void write_impl(uint64_t offset, std::span<const std::byte> buf, WriteFlags flags,
                  IoCallback cb) override {
    DeviceWrapper::write_impl(offset, buf, flags, [this, cb = std::move(cb)](Status s) {
      if (!core_at) {
        core_at = core_.snapshot();
        ssd_at = ssd_.snapshot();
      }
      cb(std::move(s));
    });
  }

 private:
  MemoryDevice& core_;
  MemoryDevice& ssd_;
};

// Holds SSD writes while `hold` is set, until release(): the metadata writes (shorter than a line:
// pages, the superblock), a persist that has not reached the medium yet; or the data writes (a
// line or more), an SSD that is behind.
class HoldSsdWrites : public DeviceWrapper {
 public:
  enum class What { kMetadata, kData };
  HoldSsdWrites(Device& target, What what) : DeviceWrapper(target), what_(what) {}
  bool hold = false;
  size_t held() const { return held_.size(); }
  void release() {
    hold = false;
    for (auto& submit : std::exchange(held_, {})) submit();
  }

 protected:
  void write_impl(uint64_t offset, std::span<const std::byte> buf, WriteFlags flags,
                  IoCallback cb) override {
    const bool data = buf.size() >= kLine;
    if (!hold || data != (what_ == What::kData)) {
      return DeviceWrapper::write_impl(offset, buf, flags, std::move(cb));
    }
    held_.push_back([this, offset, buf, flags, cb = std::move(cb)]() mutable {
      DeviceWrapper::write_impl(offset, buf, flags, std::move(cb));
    });
  }

 private:
  What what_;
  std::vector<std::function<void()>> held_;
};

// A write-back write of a whole trusted line moves the block to a fresh line and leaves the old
// one in limbo, still trusted by its durable record. The cleaner must not copy the new data to
// the core before that record is freed: a crash in between would bring back the old line as
// clean while the core holds the new data (found by crash_process_test).
TEST_F(CacheTest, CleanerWaitsForTheFreeRecordOfAMovedBlocksOldLine) {
  CacheOptions o = Deterministic();
  o.policies.admission = "always";
  o.policies.sequential = SequentialOptions{.enabled = false};
  h = std::make_unique<CacheHarness>(8 << 20, 64 << 20, Mode(CacheMode::kWriteBack), o);
  HoldSsdWrites ssd(h->ssd_mem, HoldSsdWrites::What::kMetadata);
  SnapshotAtCoreWrite core(h->core_mem, h->ssd_mem);
  h->ssd = &ssd;
  h->core = &core;
  h->open();
  auto old_data = Pattern(62, 0, kLine);
  h->core_mem.write_now(0, old_data);
  EXPECT_EQ(Read(0, kLine), old_data);  // filled, then trusted by a round
  ASSERT_EQ(C().lines_untrusted, 0u);
  ssd.hold = true;
  auto new_data = Pattern(63, 0, kLine);
  Write(0, new_data);  // whole line: moved, the old line in limbo; its free record is held
  bool cleaned = false;
  {
    EventLoop::ScopedCurrent scope(&h->loop);
    h->cache->clean_all({}, [&](Status s) { cleaned = s.ok(); });
  }
  h->loop.run_until_idle();
  ASSERT_GT(ssd.held(), 0u);
  {
    EventLoop::ScopedCurrent scope(&h->loop);
    ssd.release();
  }
  h->loop.run_until([&] { return cleaned; });
  ASSERT_TRUE(core.core_at.has_value());
  ASSERT_TRUE(testing::SyncClose(h->loop, *h->cache).ok());
  h->cache.reset();
  h->core_mem.restore(*core.core_at);  // the process died as the cleaner's core write landed
  h->ssd_mem.restore(*core.ssd_at);
  h->ssd = &h->ssd_mem;
  h->core = &h->core_mem;
  h->open();
  EXPECT_EQ(Read(0, kLine), new_data);
  EXPECT_EQ(Core(0, kLine), new_data);
}

// Misses the core serves faster than the SSD takes their copies are served without being cached
// once max_fill_backlog_bytes of copies wait: memory and the line locks the fills hold stay bounded.
TEST_F(CacheTest, FillsBeyondTheBacklogAreSkippedAndCounted) {
  CacheOptions o = Deterministic();
  o.policies.admission = "always";
  o.policies.sequential = SequentialOptions{.enabled = false};
  o.max_fill_backlog_bytes = 2 * kLine;
  h = std::make_unique<CacheHarness>(8 << 20, 64 << 20, Mode(CacheMode::kWriteThrough), o);
  HoldSsdWrites ssd(h->ssd_mem, HoldSsdWrites::What::kData);
  h->ssd = &ssd;
  h->open();
  auto data = Pattern(64, 0, 4 * kLine);
  h->core_mem.write_now(0, data);
  ssd.hold = true;
  EXPECT_EQ(Read(0, 4 * kLine), data);  // replied while the fills wait
  EXPECT_EQ(ssd.held(), 2u);
  EXPECT_EQ(C().fill_skipped_bytes, 2 * kLine);
  {
    EventLoop::ScopedCurrent scope(&h->loop);
    ssd.release();
  }
  h->loop.run_until_idle();
  EXPECT_EQ(C().bytes_written_ssd, 2 * kLine);
  EXPECT_EQ(Read(0, 4 * kLine), data);  // two lines hit, the two skipped ones are filled now
  EXPECT_EQ(C().read_hit_bytes, 2 * kLine);
  EXPECT_EQ(C().fill_skipped_bytes, 2 * kLine);
  EXPECT_EQ(Read(0, 4 * kLine), data);
  EXPECT_EQ(C().read_hit_bytes, 6 * kLine);
}

// Write-back writes over trusted lines move their blocks to fresh lines; the old lines' free
// records share one persist (a journal round: one block for the 16 records, two SSD flushes)
// within kLimboPersistDelay while the shard's reserve is not half in limbo, instead of a persist
// each.
TEST_F(CacheTest, FreeRecordsOfMovedLinesShareOnePersist) {
  CacheOptions o = Deterministic();
  o.shards = 1;
  o.policies.admission = "always";
  o.policies.sequential = SequentialOptions{.enabled = false};
  FormatOptions f = Mode(CacheMode::kWriteBack);
  f.line_size = 4096;  // 16384 lines: a reserve of 64
  h = std::make_unique<CacheHarness>(64 << 20, 64 << 20, f, o);
  h->open();
  auto old_data = Pattern(65, 0, 8 * 4096);
  h->core_mem.write_now(0, old_data);
  EXPECT_EQ(Read(0, 8 * 4096), old_data);  // filled, then trusted by a round
  ASSERT_EQ(C().lines_untrusted, 0u);
  const uint64_t flushes = h->ssd_mem.stats().flushes;
  const uint64_t writes = h->ssd_mem.stats().writes;
  auto new_data = Pattern(66, 0, 8 * 4096);
  for (uint64_t i = 0; i < 8; ++i) {
    Write(i * 4096, std::vector<std::byte>(new_data.begin() + i * 4096,
                                           new_data.begin() + (i + 1) * 4096));
  }
  EXPECT_EQ(h->ssd_mem.stats().flushes, flushes);  // nothing persisted yet
  EXPECT_EQ(h->ssd_mem.stats().writes, writes + 8);  // the data, at the new lines
  h->loop.run_for(Engine::kLimboPersistDelay);
  EXPECT_EQ(h->ssd_mem.stats().flushes, flushes + 2);  // one persist for the 8 moves
  EXPECT_EQ(h->ssd_mem.stats().writes, writes + 8 + 1);
  EXPECT_EQ(Read(0, 8 * 4096), new_data);
}

// CacheOptions::store reaches the metadata store (tiercached --journal-steps): with steps for any
// region and both thresholds at 0, every persist after a journal round writes steps; with the
// defaults this 8 MiB cache's region is too small for steps.
TEST_F(CacheTest, StoreOptionsChooseWhenJournalStepsRun) {
  for (const bool steps : {false, true}) {
    CacheOptions o = Deterministic();
    if (steps) {
      o.store.steps_above_pages = 0;
      o.store.one_step_above = {0, 1};
      o.store.four_steps_above = {0, 1};
    }
    h = std::make_unique<CacheHarness>(8 << 20, 64 << 20, Mode(CacheMode::kWriteBack), o);
    h->open();
    for (uint64_t i = 0; i < 4; ++i) {
      Write(i * kLine, Pattern(70 + i, 0, kLine));
      ASSERT_TRUE(testing::SyncFlush(h->loop, *h->cache).ok());
    }
    const MetadataCounters m = h->cache->metadata_counters();
    EXPECT_GE(m.journal_rounds, 4u) << steps;
    EXPECT_EQ(m.steps > 0, steps) << m.steps;
  }
  CacheOptions bad = Deterministic();
  bad.background_loop = &h->loop;
  bad.store.one_step_above = {15, 16};
  EXPECT_EQ(bad.validate().ToString(),
            "InvalidArgument: one_step_above 15/16 and four_steps_above 7/8 must satisfy "
            "one_step_above <= four_steps_above < 1");
}

// lines_untrusted counts lines a crash would forget now; trust_interval 0 never trusts them
// before a clean close, so a crash comes back without its clean lines (the old behaviour).
TEST_F(CacheTest, WithoutTrustRoundsACrashForgetsCleanLines) {
  CacheOptions o = Deterministic();
  o.policies.admission = "always";
  o.policies.sequential = SequentialOptions{.enabled = false};
  o.trust_interval = Nanos(0);
  h = std::make_unique<CacheHarness>(8 << 20, 64 << 20, Mode(CacheMode::kWriteThrough), o);
  h->open();
  auto data = Pattern(52, 0, 3 * kLine);
  h->core_mem.write_now(0, data);
  EXPECT_EQ(Read(0, 3 * kLine), data);
  EXPECT_EQ(C().lines_used, 3u);
  EXPECT_EQ(C().lines_untrusted, 3u);
  h->crash_restart();
  EXPECT_EQ(C().lines_used, 0u);
  EXPECT_EQ(Read(0, 3 * kLine), data);
  // A clean close trusts them all.
  h->restart();
  EXPECT_EQ(C().lines_used, 3u);
  EXPECT_EQ(C().lines_untrusted, 0u);
}

// A trust round walks each shard's untrusted list trust_batch entries per shard-lock hold, in
// both walks: 10 lines in one shard, 4 per hold, take 3 holds to mark and 3 to trust.
TEST_F(CacheTest, ATrustRoundHoldsTheShardLockForAtMostABatch) {
  auto data = Pattern(53, 0, 10 * 4096);
  ASSERT_NO_FATAL_FAILURE(MakeUntrusted(data, /*trust_batch=*/4));
  std::optional<Status> done;
  h->cache->trust_round([&done](Status s) { done = s; });
  h->loop.run_until_idle();
  ASSERT_TRUE(done.has_value() && done->ok());
  const TrustRoundReport r = h->cache->last_trust_round();
  EXPECT_EQ(r.holds, 6u);
  EXPECT_EQ(r.marked, 10u);
  EXPECT_EQ(r.trusted, 10u);
  EXPECT_EQ(C().lines_untrusted, 0u);
  h->crash_restart();  // trusted and persisted: the clean lines survive
  EXPECT_EQ(C().lines_used, 10u);
  EXPECT_EQ(Read(0, 10 * 4096), data);
  EXPECT_EQ(C().bytes_read_core, 0u);
}

// close() first, then a trust round: refused at once, before the close completes; the close
// itself trusts every line.
TEST_F(CacheTest, ATrustRoundAskedWhileTheCacheClosesIsBusy) {
  auto data = Pattern(54, 0, 10 * 4096);
  ASSERT_NO_FATAL_FAILURE(MakeUntrusted(data, /*trust_batch=*/4));
  std::optional<Status> closed, round;
  {
    EventLoop::ScopedCurrent scope(&h->loop);
    h->cache->close([&](Status s) { closed = s; });
    h->cache->trust_round([&](Status s) { round = s; });
  }
  ASSERT_TRUE(round.has_value());
  EXPECT_FALSE(closed.has_value());
  EXPECT_EQ(round->code(), Status::Code::kBusy);
  EXPECT_EQ(round->message(), "the cache is closing");
  h->loop.run_until_idle();
  ASSERT_TRUE(closed.has_value() && closed->ok()) << closed->ToString();
  EXPECT_EQ(h->cache->last_trust_round().holds, 0u);  // no round ran
  h->open();
  EXPECT_EQ(C().lines_used, 10u);
  EXPECT_EQ(C().lines_untrusted, 0u);
}

// A trust round of several steps, then close() before it is done: the close waits for it (the
// round answers first, having trusted every line), and a second round is Busy meanwhile.
TEST_F(CacheTest, CloseWaitsForARunningTrustRound) {
  auto data = Pattern(55, 0, 10 * 4096);
  ASSERT_NO_FATAL_FAILURE(MakeUntrusted(data, /*trust_batch=*/4));
  std::vector<std::string> answers;
  auto record = [&answers](const char* what) {
    return [&answers, what](Status s) { answers.push_back(what + (": " + s.ToString())); };
  };
  {
    EventLoop::ScopedCurrent scope(&h->loop);
    h->cache->trust_round(record("round"));
    h->cache->trust_round(record("second round"));
    h->cache->close(record("close"));
  }
  EXPECT_EQ(answers, (std::vector<std::string>{
                         "second round: " + Status::Busy("a trust round is running").ToString()}));
  h->loop.run_until_idle();
  EXPECT_EQ(answers, (std::vector<std::string>{
                         "second round: " + Status::Busy("a trust round is running").ToString(),
                         "round: " + Status::Ok().ToString(), "close: " + Status::Ok().ToString()}));
  EXPECT_EQ(h->cache->last_trust_round().holds, 6u);
  EXPECT_EQ(h->cache->last_trust_round().trusted, 10u);
  h->open();
  EXPECT_EQ(C().lines_used, 10u);
  EXPECT_EQ(Read(0, 10 * 4096), data);
  EXPECT_EQ(C().bytes_read_core, 0u);
}

// A mode change whose drain close() stops is answered before the close: the drain fails, the
// mode goes back to wb through the store, still open, and the answer says why; a change asked
// once close() began is refused at once. Before, close() could finish with the way back queued
// in the store behind it, never answered (crash_process_test failed about once in 30 runs).
TEST_F(CacheTest, CloseAnswersAModeChangeItStopsAndRefusesLaterOnes) {
  Make(CacheMode::kWriteBack);
  for (int i = 0; i < 10; ++i) Write(i * kLine * 3, Pattern(12, i * kLine * 3, 4096));
  ASSERT_EQ(C().lines_dirty, 10u);
  std::vector<std::string> answers;
  auto record = [&answers](const char* what) {
    return [&answers, what](Status s) { answers.push_back(what + (": " + s.ToString())); };
  };
  {
    EventLoop::ScopedCurrent scope(&h->loop);
    h->cache->set_mode(CacheMode::kWriteThrough, /*drain=*/true, record("drain"));
    h->cache->close(record("close"));
    h->cache->set_mode(CacheMode::kPassThrough, /*drain=*/false, record("late"));
  }
  h->loop.run_until_idle();
  const Status late = Status::Busy("the cache is closing (its mode does not change)");
  const Status drain =
      Status::Busy("writing dirty data back failed, the mode stays wb: cache is closing");
  EXPECT_EQ(answers, (std::vector<std::string>{"late: " + late.ToString(),
                                               "drain: " + drain.ToString(),
                                               "close: " + Status::Ok().ToString()}));
  EXPECT_EQ(h->cache->mode(), CacheMode::kWriteBack);
  h->open();  // the dirty data is still the cache's, in wb
  EXPECT_EQ(h->cache->mode(), CacheMode::kWriteBack);
  EXPECT_EQ(C().lines_dirty, 10u);
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(Read(i * kLine * 3, 4096), Pattern(12, i * kLine * 3, 4096));
  }
}

TEST_F(CacheTest, FuaWriteIsDurableWithoutFlush) {
  Make(CacheMode::kWriteBack);
  auto data = Pattern(16, 0, 4096);
  Write(0, data, WriteFlags{.fua = true});
  EXPECT_EQ(C().flushes, 1u);
  h->crash_restart();
  EXPECT_EQ(Read(0, 4096), data);
}

TEST_F(CacheTest, WrongCoreIsRefused) {
  Make(CacheMode::kWriteThrough);
  ASSERT_TRUE(testing::SyncClose(h->loop, *h->cache).ok());
  h->cache.reset();
  CoreIdentity other = h->core_id;
  other.fingerprint ^= 1;
  auto r = testing::SyncOpenCache(h->loop, h->ssd_mem, h->core_mem, other, h->options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument) << r.status().ToString();
}

// Admission "always", so the one-time scan below must evict (adaptive admission would refuse it:
// see OneTimeScanIsRefusedOnceFullByDefault).
TEST_F(CacheTest, EvictsCleanLinesWhenFullAndStaysCorrect) {
  h = std::make_unique<CacheHarness>(2 << 20, 64 << 20, Mode(CacheMode::kWriteThrough), [] {
    CacheOptions o = Deterministic();
    o.policies.admission = "always";
    return o;
  }());
  h->open();
  const uint64_t lines = C().lines_total;
  ASSERT_GT(lines, 8u);
  auto data = Pattern(17, 0, 64 << 20);
  h->core_mem.write_now(0, data);
  for (uint64_t i = 0; i < 2 * lines; ++i) {
    EXPECT_EQ(Read(i * kLine, kLine),
              std::vector<std::byte>(data.begin() + i * kLine, data.begin() + (i + 1) * kLine));
  }
  EXPECT_GE(C().evictions, lines - 4 * 4);  // shards fill unevenly
  EXPECT_LE(C().lines_used, lines);
}

// Once its lines are trusted (a trust round, a clean restart, a crash after a round), every
// victim of a full cache waits in limbo for its free record. A request over more lines than the
// reserve holds must still cache all of them, waiting for the persist that frees the victims:
// taking the first untrusted line instead evicted the lines just filled and the cache froze with
// what it held, and write-back writes went to the core (found with a 16 MiB cache and 64 KiB
// requests after a restart). One shard, `always`, no bypass: the reserve is 2 lines.
class FullOfTrustedLines : public CacheTest, public ::testing::WithParamInterface<int> {
 protected:
  // A full cache (core blocks [0, 2 C) read once), its lines all trusted, then `how`: 0 nothing
  // more, 1 a clean restart, 2 a crash. Returns the core's data.
  std::vector<std::byte> MakeFull(CacheMode mode) {
    CacheOptions o = Deterministic();
    o.shards = 1;
    o.policies.admission = "always";
    o.policies.sequential = SequentialOptions{.enabled = false};
    FormatOptions f;
    f.mode = mode;
    h = std::make_unique<CacheHarness>(2 << 20, 64 << 20, f, o);
    h->open();
    lines = C().lines_total;
    auto data = Pattern(21, 0, 4 * lines * 4096);
    h->core_mem.write_now(0, data);
    for (uint64_t i = 0; i < 2 * lines; ++i) EXPECT_EQ(Read(i * 4096, 4096), Slice(data, i, 1));
    std::optional<Status> trusted;
    h->cache->trust_round([&trusted](Status s) { trusted = s; });
    h->loop.run_until_idle();
    EXPECT_TRUE(trusted.has_value() && trusted->ok());
    if (GetParam() == 1) h->restart();
    if (GetParam() == 2) h->crash_restart();
    EXPECT_EQ(C().lines_untrusted, 0u);
    EXPECT_GT(C().lines_used, 2 * kBlocks);
    return data;
  }
  static std::vector<std::byte> Slice(const std::vector<std::byte>& d, uint64_t block,
                                      uint64_t n) {
    return {d.begin() + block * 4096, d.begin() + (block + n) * 4096};
  }
  static constexpr uint64_t kBlocks = 64;  // one request's, never cached before
  uint64_t lines = 0;
};

TEST_P(FullOfTrustedLines, AReadOfManyLinesCachesThemAll) {
  const auto data = MakeFull(CacheMode::kWriteThrough);
  const uint64_t used = C().lines_used, hits = C().read_hits, evictions = C().evictions;
  const uint64_t first = 3 * lines;
  EXPECT_EQ(Read(first * 4096, kBlocks * 4096), Slice(data, first, kBlocks));
  EXPECT_EQ(C().evictions - evictions, kBlocks);
  for (uint64_t i = first; i < first + kBlocks; ++i) {
    EXPECT_EQ(Read(i * 4096, 4096), Slice(data, i, 1));
  }
  EXPECT_EQ(C().read_hits - hits, kBlocks);
  EXPECT_EQ(C().evictions - evictions, kBlocks);
  EXPECT_EQ(C().lines_used, used);
}

TEST_P(FullOfTrustedLines, AWriteBackWriteOfManyLinesStaysOnTheSsd) {
  MakeFull(CacheMode::kWriteBack);
  const uint64_t core_written = C().bytes_written_core;
  const uint64_t first = 3 * lines;
  auto fresh = Pattern(22, first * 4096, kBlocks * 4096);
  Write(first * 4096, fresh);
  h->loop.run_until_idle();
  EXPECT_EQ(C().write_bypasses, 0u);
  EXPECT_EQ(C().bytes_written_core, core_written);
  EXPECT_EQ(C().lines_dirty, kBlocks);
  EXPECT_EQ(Read(first * 4096, kBlocks * 4096), fresh);
  EXPECT_EQ(Core(first * 4096, 4096), Slice(Pattern(21, 0, 4 * lines * 4096), first, 1));
}

INSTANTIATE_TEST_SUITE_P(TrustedBy, FullOfTrustedLines, ::testing::Values(0, 1, 2),
                         [](const auto& info) {
                           return std::string(info.param == 0   ? "ATrustRound"
                                              : info.param == 1 ? "ACleanRestart"
                                                                : "ACrash");
                         });

// The default adaptive admission fills free lines, then refuses blocks read only once: a scan of
// twice the cache evicts nothing and keeps what was cached first.
TEST_F(CacheTest, OneTimeScanIsRefusedOnceFullByDefault) {
  Make(CacheMode::kWriteThrough, 2 << 20, 64 << 20);
  const uint64_t lines = C().lines_total;
  auto data = Pattern(17, 0, 64 << 20);
  h->core_mem.write_now(0, data);
  for (uint64_t i = 0; i < 2 * lines; ++i) {
    EXPECT_EQ(Read(i * kLine, kLine),
              std::vector<std::byte>(data.begin() + i * kLine, data.begin() + (i + 1) * kLine));
  }
  h->loop.run_until_idle();
  EXPECT_EQ(C().evictions, 0u);
  const PolicyReport::Counters counters = h->cache->policy_report().admission_counters;
  const uint64_t admitted = CounterOf(counters, "admitted");
  const uint64_t refused = CounterOf(counters, "refused");
  EXPECT_EQ(admitted, C().lines_used);
  EXPECT_EQ(admitted + refused, 2 * lines);  // one question per missed line
}

// A surge of new blocks is the cache's, judged on every shard's new blocks (SurgeBoard): it
// begins once, at the shard that first sees it, not once in each shard.
TEST_F(CacheTest, ASurgeOfNewBlocksBeginsOnceForTheWholeCache) {
  h = std::make_unique<CacheHarness>(32 << 20, 256 << 20, Mode(CacheMode::kWriteThrough), [] {
    CacheOptions o = Deterministic();
    o.policies.sequential = SequentialOptions{.enabled = false};
    return o;
  }());
  h->open();
  const uint64_t lines = C().lines_total;  // 512: 128 per shard; consecutive lines, other shards
  for (uint64_t i = 0; i < 2 * lines; ++i) Read(i * kLine, 4096);  // every shard fills
  for (int pass = 0; pass < 8; ++pass) {
    for (uint64_t i = 0; i < lines / 2; ++i) Read(i * kLine, 4096);  // blocks seen before
  }
  auto surges = [&] { return CounterOf(h->cache->policy_report().admission_counters, "surges"); };
  ASSERT_EQ(surges(), 0u);
  for (uint64_t i = 2 * lines; i < 2 * lines + lines / 4; ++i) Read(i * kLine, 4096);  // new
  EXPECT_EQ(surges(), 1u);
}

// A write-back write that admission refuses goes to the core without waking the cleaner: a
// refusal is not a shortage of clean lines (a kick would show as one more cleaning decision).
TEST_F(CacheTest, RefusedWriteDoesNotWakeTheCleaner) {
  h = std::make_unique<CacheHarness>(2 << 20, 64 << 20, Mode(CacheMode::kWriteBack), [] {
    CacheOptions o = Deterministic();
    o.cleaning = "target";
    o.cleaning_options.idle_after = std::chrono::hours(1);
    return o;
  }());
  h->open();
  const uint64_t lines = C().lines_total;
  // Fills every free line of every shard with clean data (shards fill unevenly: read 4x).
  for (uint64_t i = 0; i < 4 * lines; ++i) Read(i * kLine, 4096);
  h->loop.run_until_idle();
  ASSERT_EQ(C().lines_used, lines - 4);  // each of the 4 shards keeps a reserve line free
  auto counter = [&](bool cleaning, std::string_view name) {
    PolicyReport r = h->cache->policy_report();
    return CounterOf(cleaning ? r.cleaning_counters : r.admission_counters, name);
  };
  const uint64_t waits = counter(true, "cleaning_waits");
  const uint64_t refused = counter(false, "refused");
  Write(1000 * kLine, Pattern(30, 1000 * kLine, 4096));  // a block never seen: refused
  h->loop.run_until_idle();
  EXPECT_EQ(counter(false, "refused"), refused + 1);
  EXPECT_EQ(C().write_bypasses, 1u);
  EXPECT_EQ(counter(true, "cleaning_waits"), waits);
  EXPECT_EQ(Read(1000 * kLine, 4096), Pattern(30, 1000 * kLine, 4096));
}

// Counts the core requests that reach the device.
class CountingDevice final : public DeviceWrapper {
 public:
  using DeviceWrapper::DeviceWrapper;
  int reads = 0, writes = 0;

 protected:
  void read_impl(uint64_t offset, std::span<std::byte> buf, IoCallback cb) override {
    ++reads;
    DeviceWrapper::read_impl(offset, buf, std::move(cb));
  }
  void write_impl(uint64_t offset, std::span<const std::byte> buf, WriteFlags flags,
                  IoCallback cb) override {
    ++writes;
    DeviceWrapper::write_impl(offset, buf, flags, std::move(cb));
  }
};

// A 1 MiB request over 4 KiB lines is 256 segments; their core I/O reaches the core as one
// request (pass-through and cold reads alike), and the data stays byte-exact.
TEST_F(CacheTest, AdjacentCoreIoOfOneRequestIsOneCoreRequest) {
  FormatOptions f;
  f.mode = CacheMode::kPassThrough;
  h = std::make_unique<CacheHarness>(8 << 20, 64 << 20, f, Deterministic());
  CountingDevice counting(h->core_mem);
  h->core = &counting;
  h->open();
  auto data = Pattern(40, 1 << 20, 1 << 20);
  Write(1 << 20, data);
  EXPECT_EQ(counting.writes, 1);
  EXPECT_EQ(Read(1 << 20, 1 << 20), data);
  EXPECT_EQ(counting.reads, 1);
  ASSERT_TRUE(testing::SyncSetMode(h->loop, *h->cache, CacheMode::kWriteThrough, false).ok());
  EXPECT_EQ(Read(1 << 20, 1 << 20), data);  // a cold read in wt: one core read, then fills
  EXPECT_EQ(counting.reads, 2);
  ASSERT_TRUE(testing::SyncClose(h->loop, *h->cache).ok());
  h->cache.reset();
}

TEST_F(CacheTest, ReadMissRacingWriteNeverInstallsStaleData) {
  Make(CacheMode::kWriteThrough);
  auto old_data = Pattern(18, 0, kLine);
  h->core_mem.write_now(0, old_data);
  auto new_data = Pattern(19, 0, kLine);
  std::vector<std::byte> got(kLine);
  Status read_status = Status::IoError("pending"), write_status = Status::IoError("pending");
  {
    EventLoop::ScopedCurrent scope(&h->loop);
    h->cache->read(0, got, [&](Status s) { read_status = s; });
    h->cache->write(0, new_data, {}, [&](Status s) { write_status = s; });
  }
  h->loop.run_until_idle();
  ASSERT_TRUE(read_status.ok());
  ASSERT_TRUE(write_status.ok());
  EXPECT_EQ(got, old_data);  // the read was submitted first
  EXPECT_EQ(Read(0, kLine), new_data);
  EXPECT_EQ(Core(0, kLine), new_data);
}

// Clients stay "active" (idle_after is an hour away), so only the ratio rules clean.
TEST_F(CacheTest, CleanerStartsAboveTheWatermark) {
  h = std::make_unique<CacheHarness>(4 << 20, 64 << 20, Mode(CacheMode::kWriteBack), [] {
    CacheOptions o = Deterministic();
    o.cleaning = "target";
    o.cleaning_options.dirty_target = 0.1;
    o.cleaning_options.dirty_high = 0.25;
    o.cleaning_options.idle_after = std::chrono::hours(1);
    return o;
  }());
  h->open();
  const uint64_t lines = C().lines_total;
  for (uint64_t i = 0; i < lines / 2; ++i) Write(i * kLine, Pattern(20, i * kLine, 4096));
  h->loop.run_until_idle();
  EXPECT_LE(C().lines_dirty, lines / 4);
  EXPECT_GT(C().cleaned_lines, 0u);
  for (uint64_t i = 0; i < lines / 2; ++i) {
    EXPECT_EQ(Read(i * kLine, 4096), Pattern(20, i * kLine, 4096));
  }
}

// 512-byte sectors: unaligned reads, writes, zeroing and TRIM in every mode, over sectors that are
// cached clean, dirty, or not cached, are byte-exact (read-modify-write of the 4 KiB sectors).
TEST_F(CacheTest, PartialSectorRequestsAreByteExactInEveryMode) {
  for (CacheMode mode : {CacheMode::kWriteThrough, CacheMode::kWriteBack, CacheMode::kWriteAround,
                         CacheMode::kPassThrough}) {
    SCOPED_TRACE(std::string(ModeName(mode)));
    Make(CacheMode::kWriteBack);
    std::vector<std::byte> ref = Pattern(1, 0, 4 * kLine);
    Write(0, std::vector<std::byte>(ref.begin(), ref.begin() + kLine));  // line 0 dirty
    ASSERT_TRUE(testing::SyncSetMode(h->loop, *h->cache, mode, false).ok());
    h->core_mem.write_now(kLine, std::span(ref.data() + kLine, 3 * kLine));
    Read(2 * kLine, kLine);  // line 2 cached clean in wt/wb (filled), line 1 and 3 not cached
    auto apply = [&](uint64_t off, const std::vector<std::byte>& data) {
      Write(off, data);
      std::copy(data.begin(), data.end(), ref.begin() + off);
    };
    for (uint64_t line = 0; line < 3; ++line) {
      const uint64_t base = line * kLine;
      apply(base + 512, Pattern(10 + line, base + 512, 512));        // inside one sector
      apply(base + 4096 - 1024, Pattern(20 + line, 0, 2048));        // across two sectors
      apply(base + 3 * 4096 + 512, Pattern(30 + line, 0, 3 * 4096)); // partial, whole, partial
    }
    ASSERT_TRUE(testing::SyncWriteZeroes(h->loop, *h->cache, 2 * kLine + 1536, 5120).ok());
    std::fill(ref.begin() + 2 * kLine + 1536, ref.begin() + 2 * kLine + 1536 + 5120, std::byte{0});
    // An unaligned TRIM drops only the whole sectors inside: here none, so nothing changes.
    ASSERT_TRUE(testing::SyncDiscard(h->loop, *h->cache, 3 * kLine + 512, 3072).ok());
    std::vector<std::byte> got(4 * kLine);
    ASSERT_TRUE(testing::SyncRead(h->loop, *h->cache, 0, got).ok());
    EXPECT_TRUE(got == ref);
    std::vector<std::byte> part(1536);
    ASSERT_TRUE(testing::SyncRead(h->loop, *h->cache, kLine + 3584, part).ok());
    EXPECT_TRUE(std::equal(part.begin(), part.end(), ref.begin() + kLine + 3584));
    ASSERT_TRUE(testing::SyncCleanAll(h->loop, *h->cache).ok());
    EXPECT_TRUE(Core(0, 4 * kLine) == ref);
  }
}

// NBD CACHE in 512-byte sectors: the 4 KiB sectors covering each range are read in (a prefetch
// of whole sectors only, as the read path's device requests must be), and nothing counts as an
// SSD error (five of these used to fail the SSD).
TEST_F(CacheTest, PrefetchOfPartialSectorsReadsTheirCover) {
  Make(CacheMode::kWriteThrough);
  const auto data = Pattern(3, 0, 3 * kLine);
  h->core_mem.write_now(0, data);
  const std::pair<uint64_t, uint64_t> ranges[] = {
      {512, 512}, {kLine + 512, 3584}, {2 * kLine + 4096 - 512, 1024}};
  for (auto [offset, length] : ranges) {
    ASSERT_TRUE(testing::SyncPrefetch(h->loop, *h->cache, offset, length).ok()) << offset;
  }
  h->loop.run_until_idle();
  EXPECT_EQ(C().bytes_read_core, 4 * 4096u);
  EXPECT_EQ(C().bytes_written_ssd, 4 * 4096u);
  EXPECT_EQ(h->cache->health().state, "ok");
  EXPECT_EQ(h->cache->health().read_errors, 0u);
  const std::pair<uint64_t, uint64_t> covers[] = {
      {0, 4096}, {kLine, 4096}, {2 * kLine, 8192}};
  for (auto [offset, length] : covers) {
    EXPECT_TRUE(Read(offset, length) ==
                std::vector<std::byte>(data.begin() + offset, data.begin() + offset + length));
  }
  EXPECT_EQ(C().bytes_read_core, 4 * 4096u);
  EXPECT_EQ(C().read_hits, 3u);
}

// A long read stream is cached while the cache has room (a free line holds nothing to protect)
// and bypassed once it is full. A later pass over it, bypassed as well, still reads from the SSD
// the runs the cache holds (3/4 of their lines at least), so a loop larger than the cache keeps
// hitting the part it filled; a run held less comes from the core whole (no SSD pieces between
// core pieces of a stream).
TEST_F(CacheTest, ALongReadStreamFillsTheRoomThenHitsWhatItFilled) {
  const uint64_t blocks = MakeForALoop("always", 11);  // read in 4 KiB reads
  auto sequential = [&] {
    std::map<std::string, uint64_t> out;
    for (const auto& [name, value] : h->cache->policy_report().sequential_counters) {
      out[name] = value;
    }
    return out;
  };
  auto read = [&](uint64_t block, uint64_t count) {
    ASSERT_TRUE(Read(block * 4096, count * 4096) == Pattern(11, block * 4096, count * 4096))
        << block;
  };
  for (uint64_t b = 0; b < blocks; ++b) read(b, 1);
  // Read 0 is within the 4 KiB cutoff; read j > 0 is past it and finds j lines used, so reads
  // 1 .. capacity - 1 had room and the rest bypassed.
  const uint64_t capacity = C().lines_used;
  ASSERT_LT(capacity, blocks);
  auto c = sequential();
  EXPECT_EQ(c["room_read_requests"], capacity - 1);
  EXPECT_EQ(c["bypassed_read_requests"], blocks - capacity);
  EXPECT_EQ(C().read_misses, capacity);
  EXPECT_EQ(C().read_bypasses, blocks - capacity);

  // Pass 2, over the full cache: read 0 starts a new stream and hits; the rest bypass (the
  // stream spans more than half the cache, so it is no repeat), and those of the cached part
  // still hit.
  const uint64_t ssd_bytes = C().bytes_read_ssd;
  for (uint64_t b = 0; b < blocks; ++b) read(b, 1);
  c = sequential();
  EXPECT_EQ(c["repeated_read_requests"], 0u);
  EXPECT_EQ(c["bypassed_read_requests"], 2 * blocks - capacity - 1);
  EXPECT_EQ(C().read_hits, capacity);
  EXPECT_EQ(C().read_bypasses, 2 * (blocks - capacity));
  EXPECT_EQ(C().bytes_read_ssd - ssd_bytes, capacity * 4096);
  EXPECT_EQ(C().lines_used, capacity);

  // New streams of a 4 KiB read and a 64 KiB one: past the cutoff, one run of 16 lines. Across
  // the end of the cached part with 8 lines held, the run comes from the core; with 12 held (3/4),
  // those 12 from the SSD and the other 4 from the core; inside the part, all from the SSD.
  read(capacity - 9, 1);
  read(capacity - 8, 16);
  EXPECT_EQ(C().bytes_read_ssd - ssd_bytes, (capacity + 1) * 4096);
  EXPECT_EQ(C().read_bypasses, 2 * (blocks - capacity) + 1);
  read(capacity - 13, 1);
  read(capacity - 12, 16);
  EXPECT_EQ(C().bytes_read_ssd - ssd_bytes, (capacity + 14) * 4096);
  EXPECT_EQ(C().read_bypasses, 2 * (blocks - capacity) + 2);  // the core still read some
  read(10, 1);
  read(11, 16);
  EXPECT_EQ(C().bytes_read_ssd - ssd_bytes, (capacity + 31) * 4096);
  EXPECT_EQ(C().read_hits, capacity + 4);
}

// Behind a policy that refuses misses (the default, adaptive) the same loop's second pass is
// handed to admission in the first half cache of what pass 1 covered past the cutoff, and
// bypassed past it. With `always` put in force live, an extent of more than half the cache is
// bypassed whole again (`always` would admit its part at every pass and churn); and back.
TEST_F(CacheTest, AStreamReadAgainIsJudgedInItsFirstHalfCache) {
  const uint64_t blocks = MakeForALoop("adaptive", 12);  // read in 4 KiB reads
  auto counter = [&](std::string_view name) {
    return CounterOf(h->cache->policy_report().sequential_counters, name);
  };
  auto read = [&](uint64_t block) {
    ASSERT_TRUE(Read(block * 4096, 4096) == Pattern(12, block * 4096, 4096)) << block;
  };
  for (int pass = 1; pass <= 2; ++pass) {
    for (uint64_t b = 0; b < blocks; ++b) ASSERT_NO_FATAL_FAILURE(read(b));
  }
  // Pass 1 filled `capacity` lines from block 0 and bypassed the rest. Pass 2: read 0 starts a
  // new stream (within the cutoff); reads 1 .. repeats start within half the cache's lines of
  // the extent's start (block 1), every one of them cached, so they hit through the cache.
  const uint64_t capacity = C().lines_used;
  const uint64_t repeats = (C().lines_total + 1) / 2;
  ASSERT_LT(repeats, capacity);
  EXPECT_EQ(counter("repeated_read_requests"), repeats);
  EXPECT_EQ(counter("bypassed_read_requests"), 2 * blocks - capacity - 1 - repeats);
  EXPECT_EQ(C().read_hits, capacity);
  EXPECT_EQ(C().lines_used, capacity);

  PolicyOptions next;
  next.sequential = kLoopCutoffs;
  for (const char* admission : {"always", "adaptive"}) {
    next.admission = admission;
    ASSERT_TRUE(testing::SyncSetPolicies(h->loop, *h->cache, next).ok());
    const uint64_t repeated = counter("repeated_read_requests");
    const uint64_t bypassed = counter("bypassed_read_requests");
    ASSERT_NO_FATAL_FAILURE(read(0));  // a new stream, within its cutoff
    ASSERT_NO_FATAL_FAILURE(read(1));  // past it, at the extent's start
    const bool refuses = next.admission == "adaptive";
    EXPECT_EQ(counter("repeated_read_requests"), repeated + (refuses ? 1 : 0)) << admission;
    EXPECT_EQ(counter("bypassed_read_requests"), bypassed + (refuses ? 0 : 1)) << admission;
  }
}

// Each request lands in the histogram of its path once; MemoryDevices complete at the same
// virtual instant, so every latency is 0 (the first bucket).
TEST_F(CacheTest, LatencyIsRecordedPerPath) {
  Make(CacheMode::kWriteThrough);
  Read(0, kLine);                          // miss
  Read(0, kLine);                          // hit
  Read(0, 2 * kLine);                      // partial hit: needs the core, so "miss"
  Write(3 * kLine, Pattern(9, 0, 4096));   // write
  ASSERT_TRUE(testing::SyncFlush(h->loop, *h->cache).ok());
  ASSERT_TRUE(testing::SyncDiscard(h->loop, *h->cache, 0, 4096).ok());  // not in any path
  CacheLatency l = h->cache->latency();
  EXPECT_EQ(l.hit.count(), 1u);
  EXPECT_EQ(l.miss.count(), 2u);
  EXPECT_EQ(l.write.count(), 1u);
  EXPECT_EQ(l.flush.count(), 1u);
  EXPECT_EQ(l.miss.buckets[0], 2u);
  EXPECT_EQ(l.miss.sum_ns, 0u);
}

}  // namespace
}  // namespace tiercache
