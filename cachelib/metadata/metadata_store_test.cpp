#include "cachelib/metadata/metadata_store.h"

#include <gtest/gtest.h>

#include <future>

#include "cachelib/common/epoll_event_loop.h"
#include "cachelib/device/error_device.h"
#include "cachelib/device/memory_device.h"
#include "cachelib/metadata/metadata_test_util.h"
#include "cachelib/metadata/superblock.h"

namespace tiercache {
namespace {

using testing::MakeRecord;
using testing::SyncCloseClean;
using testing::SyncFormat;
using testing::SyncOpen;
using testing::SyncPersist;
using testing::SyncSetMode;

constexpr uint64_t kCoreSize = 10ull << 30;

CoreIdentity Core() { return CoreIdentity{"/dev/hdd0", kCoreSize, 0x1234}; }

FormatOptions Options(uint32_t line_size = 64 * 1024, bool force = false) {
  FormatOptions o;
  o.line_size = line_size;
  o.force = force;
  return o;
}

class MetadataStoreTest : public ::testing::Test {
 protected:
  std::unique_ptr<MetadataStore> FormatAndOpen(uint32_t line_size = 64 * 1024) {
    EXPECT_TRUE(SyncFormat(loop_, ssd_, Core(), Options(line_size)).ok());
    return Reopen();
  }
  std::unique_ptr<MetadataStore> Reopen() {
    auto r = SyncOpen(loop_, ssd_, Core());
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::move(r).value() : nullptr;
  }
  Status OpenStatus(const CoreIdentity& core) { return SyncOpen(loop_, ssd_, core).status(); }
  // Rewrites the format version of both superblock copies (with valid checksums).
  // Rewrites both superblock copies as `version` with `shard_stripe_lines` (builds before version 7
  // wrote 0 there).
  void SetVersionOnDevice(uint32_t version, uint32_t shard_stripe_lines = 0) {
    std::vector<std::byte> copy(format::kBlockSize);
    for (uint64_t at : format::kSuperblockOffset) {
      ssd_.read_now(at, copy);
      format::PutU32(copy, format::sb::kVersion, version);
      format::PutU32(copy, format::sb::kShardStripeLines, shard_stripe_lines);
      format::PutU64(copy, format::sb::kChecksum, format::Checksum(std::span(copy).subspan(16)));
      ssd_.write_now(at, copy);
    }
  }
  // Overwrites `length` bytes at `offset` with 0xA5.
  void Scribble(uint64_t offset, size_t length) {
    std::vector<std::byte> junk(length, std::byte{0xA5});
    ssd_.write_now(offset, junk);
  }

  SimEventLoop loop_;
  MemoryDevice ssd_{"ssd0", 64ull << 20};
};

TEST_F(MetadataStoreTest, FormatRecordsThePoliciesAndRefusesBadOnes) {
  FormatOptions o = Options(64 * 1024);
  o.policies.replacement = "lru";
  o.policies.sequential.write_cutoff_bytes = 1 << 20;
  ASSERT_TRUE(SyncFormat(loop_, ssd_, Core(), o).ok());
  auto store = Reopen();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->info().policies, o.policies);
  o.force = true;
  o.policies.replacement = "mru";
  EXPECT_EQ(SyncFormat(loop_, ssd_, Core(), o).message(),
            "unknown replacement policy 'mru' (lru, clock, s3fifo, sieve, epoch-lru)");
}

TEST_F(MetadataStoreTest, FormatThenOpenReportsTheLayout) {
  auto store = FormatAndOpen();
  ASSERT_NE(store, nullptr);
  const SuperblockInfo& info = store->info();
  EXPECT_EQ(info.version, 7u);
  EXPECT_EQ(info.shard_stripe_lines, 1u);  // 64 KiB stripes of 64 KiB lines
  EXPECT_EQ(info.policies, PolicyOptions{});  // the defaults, as recorded
  EXPECT_EQ(info.core, Core());
  EXPECT_EQ(info.line_size, 64u * 1024);
  EXPECT_EQ(info.mode, CacheMode::kWriteThrough);
  EXPECT_TRUE(info.was_clean_shutdown);  // a fresh cache has nothing to recover
  EXPECT_EQ(info.line_count, 1022u);  // 4 pages and a 16-block journal: 2 lines of metadata
  EXPECT_EQ(info.data_offset, 131072u);
  EXPECT_EQ(store->data_offset(5), 131072u + 5 * 65536);
  EXPECT_NE(info.uuid, (std::array<uint8_t, 16>{}));
  for (uint64_t line = 0; line < info.line_count; ++line) {
    ASSERT_FALSE(store->loaded_record(line).in_use()) << line;
  }
}

TEST_F(MetadataStoreTest, OpenMarksTheCacheInUseDurably) {
  auto store = FormatAndOpen();
  store.reset();  // no close_clean: a crash
  auto again = Reopen();
  EXPECT_FALSE(again->info().was_clean_shutdown);
}

TEST_F(MetadataStoreTest, PersistedRecordsSurviveACleanReopenExactly) {
  auto store = FormatAndOpen();
  const uint64_t lines = store->line_count();
  std::vector<LineRecord> expect(lines);
  for (uint64_t line = 0; line < lines; line += 3) {
    expect[line] = MakeRecord(line, (line * 7919) % (kCoreSize / 65536), 16, line % 2 == 0);
    store->set_record(line, expect[line]);
  }
  expect[lines - 1].core_line = kCoreSize / 65536 - 1;  // last line, last core line, all bits
  for (uint32_t s = 0; s < 16; ++s) {
    expect[lines - 1].valid.set(s);
    expect[lines - 1].dirty.set(s);
  }
  store->set_record(lines - 1, expect[lines - 1]);
  ASSERT_TRUE(SyncPersist(loop_, *store).ok());
  ASSERT_TRUE(SyncCloseClean(loop_, *store).ok());
  store.reset();

  auto again = Reopen();
  EXPECT_TRUE(again->info().was_clean_shutdown);
  for (uint64_t line = 0; line < lines; ++line) {
    ASSERT_EQ(again->loaded_record(line), expect[line]) << "line " << line;
  }
}

// Since format version 4 an unclean shutdown loads every record as stored: the engine only lets
// a record claim clean sectors whose SSD and core copies are durable and equal.
TEST_F(MetadataStoreTest, UncleanShutdownLoadsRecordsAsStored) {
  auto store = FormatAndOpen();
  LineRecord clean = MakeRecord(1, 10, 16, false);
  LineRecord dirty = MakeRecord(2, 11, 16, true);
  ASSERT_NE(dirty.valid, dirty.dirty);
  store->set_record(0, clean);
  store->set_record(1, dirty);
  ASSERT_TRUE(SyncPersist(loop_, *store).ok());
  store.reset();  // crash

  auto again = Reopen();
  EXPECT_FALSE(again->info().was_clean_shutdown);
  EXPECT_EQ(again->loaded_record(0), clean);
  EXPECT_EQ(again->loaded_record(1), dirty);
}

TEST_F(MetadataStoreTest, RecordsStagedAfterCloseCleanMakeTheNextShutdownUnclean) {
  auto store = FormatAndOpen();
  ASSERT_TRUE(SyncCloseClean(loop_, *store).ok());
  store->set_record(3, MakeRecord(3, 3, 16, false));
  ASSERT_TRUE(SyncPersist(loop_, *store).ok());
  store.reset();
  auto again = Reopen();
  EXPECT_FALSE(again->info().was_clean_shutdown);
}

// Torn writes of an uncommitted round: metadata_rounds_test.cpp.
TEST_F(MetadataStoreTest, DamagedCommittedSlotIsCorruptionNotARollback) {
  auto store = FormatAndOpen();
  LineRecord v1 = MakeRecord(1, 100, 16, true);
  LineRecord v2 = MakeRecord(2, 200, 16, true);
  store->set_record(5, v1);
  ASSERT_TRUE(SyncPersist(loop_, *store).ok());
  store->set_record(5, v2);
  ASSERT_TRUE(SyncPersist(loop_, *store).ok());
  ASSERT_TRUE(SyncCloseClean(loop_, *store).ok());
  store.reset();

  // Page 0 was written twice: slot B (round 1), then slot A (round 2), both committed.
  format::Layout l = testing::LayoutOnDevice(ssd_);
  std::vector<std::byte> slot(format::kBlockSize);
  ssd_.read_now(l.slot_offset(0, 0), slot);
  ASSERT_EQ(format::GetU64(slot, format::slot::kSequence), 2u);
  ssd_.read_now(l.slot_offset(0, 1), slot);
  ASSERT_EQ(format::GetU64(slot, format::slot::kSequence), 1u);
  Scribble(l.slot_offset(0, 0) + 2048, 2048);

  // Falling back to slot B would revive v1 (core line 100) for a line that now holds 200.
  Status s = OpenStatus(Core());
  EXPECT_EQ(s.code(), Status::Code::kCorruption);
  EXPECT_EQ(s.message(),
            "ssd0: metadata page 0 slot A fails its checksum, and no uncommitted round wrote it: "
            "committed metadata is damaged");
}

// Slot B is written first and never zeroed again: B zero beside a committed A is a lost slot,
// maybe the newer one (QA, 2026-12-07: zeroing a page's newest slot served the older slot's
// stale mappings). The reverse, A zero beside B, is a page written once and loads.
TEST_F(MetadataStoreTest, AZeroedSlotBBesideSlotAIsCorruption) {
  auto store = FormatAndOpen();
  for (uint64_t round = 1; round <= 3; ++round) {
    store->set_record(5, MakeRecord(round, 100 * round, 16, true));
    ASSERT_TRUE(SyncPersist(loop_, *store).ok());  // B (1), A (2), B (3)
  }
  store->set_record(500, MakeRecord(9, 900, 16, true));  // page 1: once, in B
  ASSERT_TRUE(SyncPersist(loop_, *store).ok());
  ASSERT_TRUE(SyncCloseClean(loop_, *store).ok());
  store.reset();
  format::Layout l = testing::LayoutOnDevice(ssd_);
  ASSERT_EQ(500 / l.records_per_page, 1u);  // line 500 is on page 1
  std::vector<std::byte> before(format::kBlockSize), zero(format::kBlockSize);
  ssd_.read_now(l.slot_offset(0, 1), before);
  ASSERT_EQ(format::GetU64(before, format::slot::kSequence), 3u);
  ssd_.write_now(l.slot_offset(0, 1), zero);
  // Loading slot A would revive round 2's core line 200 for a line that now holds 300.
  Status s = OpenStatus(Core());
  EXPECT_EQ(s.code(), Status::Code::kCorruption);
  EXPECT_EQ(s.message(),
            "ssd0: metadata page 0 slot B is all zero, but slot A holds round 2 and is written "
            "only after B: B was lost (zeroed or discarded), and it may have held the newer copy");
  ssd_.write_now(l.slot_offset(0, 1), before);
  auto reopened = Reopen();
  ASSERT_NE(reopened, nullptr);
}

TEST_F(MetadataStoreTest, BothSlotsCorruptIsCorruption) {
  auto store = FormatAndOpen();
  store->set_record(0, MakeRecord(1, 1, 16, true));
  ASSERT_TRUE(SyncPersist(loop_, *store).ok());
  store.reset();
  format::Layout l = testing::LayoutOnDevice(ssd_);
  Scribble(l.slot_offset(1, 0), 100);  // page 1: never written, both slots zero before
  Scribble(l.slot_offset(1, 1), 100);
  Status s = OpenStatus(Core());
  EXPECT_EQ(s.code(), Status::Code::kCorruption);
  EXPECT_EQ(s.message(),
            "ssd0: metadata page 1 slot A fails its checksum, and no uncommitted round wrote it: "
            "committed metadata is damaged");
}

TEST_F(MetadataStoreTest, OneCorruptSuperblockCopyIsSurvived) {
  auto store = FormatAndOpen();
  store.reset();
  Scribble(format::kSuperblockOffset[0] + 200, 8);
  EXPECT_TRUE(SyncOpen(loop_, ssd_, Core()).ok());
  Scribble(format::kSuperblockOffset[1] + 200, 8);
  Scribble(format::kSuperblockOffset[0] + 200, 8);
  Status s = OpenStatus(Core());
  EXPECT_EQ(s.code(), Status::Code::kCorruption);
  EXPECT_EQ(s.message(),
            "tiercache superblock on ssd0 is corrupt: both copies fail their checksum");
}

TEST_F(MetadataStoreTest, OpenRefusesAnEmptyOrForeignDevice) {
  Status s = OpenStatus(Core());
  EXPECT_EQ(s.code(), Status::Code::kNotFound);
  EXPECT_EQ(s.message(), "no tiercache superblock on ssd0; run tiercache create");
  Scribble(510, 2);  // a partition table signature, say
  s = OpenStatus(Core());
  EXPECT_EQ(s.code(), Status::Code::kNotFound);
  EXPECT_EQ(s.message(), "ssd0 does not hold a tiercache cache (it contains other data)");
}

TEST_F(MetadataStoreTest, OpenRefusesANewerFormatVersion) {
  ASSERT_TRUE(SyncFormat(loop_, ssd_, Core(), Options()).ok());
  std::vector<std::byte> copy(format::kBlockSize);
  ssd_.read_now(format::kSuperblockOffset[1], copy);
  format::PutU32(copy, format::sb::kVersion, 8);
  format::PutU64(copy, format::sb::kChecksum, format::Checksum(std::span(copy).subspan(16)));
  ssd_.write_now(format::kSuperblockOffset[1], copy);
  Status s = OpenStatus(Core());
  EXPECT_EQ(s.code(), Status::Code::kNotSupported);
  EXPECT_EQ(s.message(),
            "ssd0: tiercache format version 8 is not supported (this build reads versions 5 to "
            "7): it was made by a newer tiercache; run it with that version (or later)");
}

// Version 6 only added what version 5 never wrote (journal markers, a wrapped journal), and
// version 7 a field whose 0 keeps the shards' old contiguous lines: a version 5 or 6 cache opens
// with its records, and opening writes it as version 7 with that 0 (its records are where the
// old layout put them).
TEST_F(MetadataStoreTest, AVersion5Or6CacheOpensAndBecomesVersion7WithContiguousShards) {
  for (uint32_t version : {5u, 6u}) {
    SCOPED_TRACE(version);
    FormatOptions o = Options();
    o.force = true;
    ASSERT_TRUE(SyncFormat(loop_, ssd_, Core(), o).ok());
    {
      auto store = SyncOpen(loop_, ssd_, Core());
      ASSERT_TRUE(store.ok());
      (*store)->set_record(3, MakeRecord(1, 77, 16, true));
      ASSERT_TRUE(SyncCloseClean(loop_, **store).ok());
    }
    SetVersionOnDevice(version);
    auto store = SyncOpen(loop_, ssd_, Core());
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    EXPECT_EQ((*store)->loaded_record(3), MakeRecord(1, 77, 16, true));
    EXPECT_EQ((*store)->info().version, 7u);
    EXPECT_EQ((*store)->info().shard_stripe_lines, 0u);
    std::vector<std::byte> copy(format::kBlockSize);
    for (uint64_t at : format::kSuperblockOffset) {
      ssd_.read_now(at, copy);
      EXPECT_EQ(format::GetU32(copy, format::sb::kVersion), 7u);
      EXPECT_EQ(format::GetU32(copy, format::sb::kShardStripeLines), 0u);
    }
    ASSERT_TRUE(SyncCloseClean(loop_, **store).ok());
  }
}

// A cache made before clean records were trusted after a crash (version 3): the error says what
// to do.
TEST_F(MetadataStoreTest, OpenRefusesAnOlderFormatVersionNamingTheWayOut) {
  ASSERT_TRUE(SyncFormat(loop_, ssd_, Core(), Options()).ok());
  SetVersionOnDevice(3);
  Status s = OpenStatus(Core());
  EXPECT_EQ(s.code(), Status::Code::kNotSupported);
  EXPECT_EQ(s.message(),
            "ssd0: tiercache format version 3 is not supported (this build reads versions 5 to 7): "
            "it was made by an older tiercache; write back its dirty data with that version "
            "(tiercache flush), then recreate the cache with tiercache create --force "
            "--discard-dirty");
}

TEST_F(MetadataStoreTest, OpenRefusesTheWrongCore) {
  ASSERT_TRUE(SyncFormat(loop_, ssd_, Core(), Options()).ok());
  CoreIdentity resized = Core();
  resized.size += 4096;
  Status s = OpenStatus(resized);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "core /dev/hdd0 is 10737422336 bytes but cache ssd0 was created for 10737418240 "
            "bytes; to resize a cached core, write its dirty data back with the core at its old "
            "size (start tiercached, run `tiercache detach`), then `tiercache create --force` a "
            "cache for the new size");
  CoreIdentity other{"/dev/hdd1", kCoreSize, 0x5678};
  s = OpenStatus(other);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "core /dev/hdd1 is not the device cache ssd0 was created for (/dev/hdd0); if it holds "
            "the same data under a new identity (a copied or restored image, a renumbered device), "
            "re-bind it with `tiercache attach --cache ssd0 --core /dev/hdd1`");
  // The path alone may change (device renaming): same size and fingerprint open fine.
  CoreIdentity renamed{"/dev/sdz", kCoreSize, 0x1234};
  EXPECT_TRUE(SyncOpen(loop_, ssd_, renamed).ok());
}

TEST_F(MetadataStoreTest, OpenRefusesAnSsdSmallerThanItsLayout) {
  ASSERT_TRUE(SyncFormat(loop_, ssd_, Core(), Options()).ok());
  MemoryDevice small("ssd-small", 32ull << 20);
  std::vector<std::byte> head(1 << 20);
  ssd_.read_now(0, head);
  small.write_now(0, head);
  Status s = SyncOpen(loop_, small, Core()).status();
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "cache device ssd-small is 33554432 bytes but its layout needs 67108864 bytes");
}

TEST_F(MetadataStoreTest, FormatRefusesAnExistingCacheUnlessForced) {
  auto store = FormatAndOpen();
  std::array<uint8_t, 16> old_uuid = store->info().uuid;
  store->set_record(7, MakeRecord(7, 7, 16, true));
  ASSERT_TRUE(SyncCloseClean(loop_, *store).ok());
  store.reset();

  Status s = SyncFormat(loop_, ssd_, Core(), Options());
  EXPECT_EQ(s.code(), Status::Code::kBusy);
  EXPECT_EQ(s.message(), "ssd0 already holds a tiercache cache; use --force to overwrite it");
  EXPECT_EQ(Reopen()->loaded_record(7).core_line, 7u);  // untouched

  ASSERT_TRUE(SyncFormat(loop_, ssd_, Core(), Options(64 * 1024, true)).ok());
  auto fresh = Reopen();
  EXPECT_NE(fresh->info().uuid, old_uuid);
  EXPECT_TRUE(fresh->info().was_clean_shutdown);
  EXPECT_FALSE(fresh->loaded_record(7).in_use());
}

TEST_F(MetadataStoreTest, FormatRefusesForeignDataUnlessForced) {
  Scribble(4096 + 17, 1);
  Status s = SyncFormat(loop_, ssd_, Core(), Options());
  EXPECT_EQ(s.code(), Status::Code::kBusy);
  EXPECT_EQ(s.message(),
            "ssd0 holds other data (no tiercache superblock); use --force to overwrite it");
  EXPECT_TRUE(SyncFormat(loop_, ssd_, Core(), Options(64 * 1024, true)).ok());
}

TEST_F(MetadataStoreTest, FormatRefusesAnSsdTooSmallForSixteenLines) {
  // Superblocks 8 KiB, one page 8 KiB, a 16-block journal 64 KiB: data at 128 KiB.
  MemoryDevice tiny("tiny", 1179648 - 4096);  // one block short of 16 64-KiB lines
  Status s = SyncFormat(loop_, tiny, Core(), Options());
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "cache device tiny is 1175552 bytes, too small for 16 lines of 65536 bytes (needs "
            "1179648 bytes)");
  MemoryDevice just("just", 1179648);
  ASSERT_TRUE(SyncFormat(loop_, just, Core(), Options()).ok());
  auto store = SyncOpen(loop_, just, Core());
  ASSERT_TRUE(store.ok());
  EXPECT_EQ((*store)->line_count(), 16u);
}

TEST_F(MetadataStoreTest, FormatRefusesBadArguments) {
  EXPECT_EQ(SyncFormat(loop_, ssd_, Core(), Options(3000)).code(), Status::Code::kInvalidArgument);
  CoreIdentity long_path = Core();
  long_path.path.assign(1025, 'p');
  Status s = SyncFormat(loop_, ssd_, long_path, Options());
  EXPECT_EQ(s.message(), "core path is 1025 bytes; at most 1024 fit in the superblock");
  long_path.path.assign(1024, 'p');
  ASSERT_TRUE(SyncFormat(loop_, ssd_, long_path, Options()).ok());
  auto store = SyncOpen(loop_, ssd_, long_path);
  ASSERT_TRUE(store.ok());
  EXPECT_EQ((*store)->info().core.path, long_path.path);
}

TEST_F(MetadataStoreTest, SetModeIsDurable) {
  auto store = FormatAndOpen();
  ASSERT_TRUE(SyncSetMode(loop_, *store, CacheMode::kWriteBack).ok());
  EXPECT_EQ(store->info().mode, CacheMode::kWriteBack);
  store.reset();
  EXPECT_EQ(Reopen()->info().mode, CacheMode::kWriteBack);
}

TEST_F(MetadataStoreTest, FailedPersistIsRetriedByTheNext) {
  ASSERT_TRUE(SyncFormat(loop_, ssd_, Core(), Options()).ok());
  ErrorDevice faulty(ssd_);
  auto opened = SyncOpen(loop_, faulty, Core());
  ASSERT_TRUE(opened.ok());
  auto store = std::move(opened).value();
  LineRecord r = MakeRecord(9, 9, 16, true);
  store->set_record(400, r);  // page 1
  faulty.fail_nth(1, ErrorDevice::kWrite);
  EXPECT_EQ(SyncPersist(loop_, *store).code(), Status::Code::kIoError);
  EXPECT_EQ(faulty.injected(), 1u);
  EXPECT_FALSE(testing::RecordsOnDevice(ssd_)[400].in_use());
  faulty.clear();
  ASSERT_TRUE(SyncPersist(loop_, *store).ok());
  EXPECT_EQ(testing::RecordsOnDevice(ssd_)[400], r);
}

TEST_F(MetadataStoreTest, EachPersistWaitsForEverythingStagedBeforeIt) {
  auto store = FormatAndOpen();
  std::vector<Status> results;
  std::vector<std::vector<LineRecord>> seen;
  const uint64_t flushes_before = ssd_.stats().flushes.load();
  {
    EventLoop::ScopedCurrent scope(&loop_);
    for (uint64_t i = 0; i < 5; ++i) {
      store->set_record(i * 250, MakeRecord(i, i, 16, true));  // pages 0, 0, 1, 2, 2
      store->persist([&](Status s) {
        results.push_back(s);
        seen.push_back(testing::RecordsOnDevice(ssd_));
      });
    }
  }
  loop_.run_until_idle();
  ASSERT_EQ(results.size(), 5u);
  // Two persists (the first call alone, then the four that waited, batched), one round and
  // three flushes each.
  EXPECT_EQ(ssd_.stats().flushes.load() - flushes_before, 6u);
  for (size_t call = 0; call < 5; ++call) {
    EXPECT_TRUE(results[call].ok());
    for (uint64_t i = 0; i <= call; ++i) {
      EXPECT_EQ(seen[call][i * 250], MakeRecord(i, i, 16, true)) << "persist " << call;
    }
  }
}

// Two loop threads stage and persist records on the same pages at once; each persist's callback
// must find its own record on the SSD.
TEST_F(MetadataStoreTest, ConcurrentPersistsFromTwoLoopThreads) {
  auto store = FormatAndOpen();
  constexpr int kIterations = 200;
  auto record = [](int thread, int i) {
    return MakeRecord(thread * 1000 + i, thread * 1000 + i, 16, true);
  };
  std::vector<std::unique_ptr<LoopThread>> threads;
  std::vector<std::promise<int>> finished(2);
  for (int t = 0; t < 2; ++t) {
    auto lt = LoopThread::Start("meta-test");
    ASSERT_TRUE(lt.ok());
    threads.push_back(std::move(lt).value());
  }
  // One chain per thread: set_record, persist, check, repeat. Lines t, t+2, ..., t+18 (page 0).
  std::function<void(int, int, int)> step = [&](int t, int i, int mismatches) {
    if (i == kIterations) return finished[t].set_value(mismatches);
    uint64_t line = t + 2 * (i % 10);
    store->set_record(line, record(t, i));
    store->persist([&, t, i, line, mismatches](Status s) {
      bool ok = s.ok() && testing::RecordsOnDevice(ssd_)[line] == record(t, i);
      step(t, i + 1, mismatches + (ok ? 0 : 1));
    });
  };
  for (int t = 0; t < 2; ++t) threads[t]->loop().post([&, t] { step(t, 0, 0); });
  EXPECT_EQ(finished[0].get_future().get(), 0);
  EXPECT_EQ(finished[1].get_future().get(), 0);
  threads.clear();

  ASSERT_TRUE(SyncCloseClean(loop_, *store).ok());
  store.reset();
  auto again = Reopen();
  for (int t = 0; t < 2; ++t) {
    for (int i = kIterations - 10; i < kIterations; ++i) {
      EXPECT_EQ(again->loaded_record(t + 2 * (i % 10)), record(t, i));
    }
  }
}

TEST(FormatOptionsTest, ValidateChecksTheLineSize) {
  for (uint32_t bad : {3000u, 2048u, 2u << 20, 0u}) {
    FormatOptions o;
    o.line_size = bad;
    Status s = o.validate();
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
    EXPECT_EQ(s.message(), "line_size " + std::to_string(bad) +
                               " must be a power of two between 4096 and 1048576 bytes");
  }
  for (uint32_t good : {4096u, 65536u, 1u << 20}) {
    FormatOptions o;
    o.line_size = good;
    EXPECT_TRUE(o.validate().ok()) << good;
  }
}

TEST(CacheModeTest, NamesRoundTrip) {
  for (CacheMode m : {CacheMode::kWriteThrough, CacheMode::kWriteBack, CacheMode::kWriteAround,
                      CacheMode::kPassThrough}) {
    auto parsed = ParseMode(ModeName(m));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, m);
  }
  EXPECT_EQ(ModeName(CacheMode::kWriteBack), "wb");
  Status s = ParseMode("writeback").status();
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(s.message(), "unknown cache mode 'writeback' (expected wt, wb, wa or pt)");
}

}  // namespace
}  // namespace tiercache
