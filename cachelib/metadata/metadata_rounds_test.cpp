// Persist rounds (format version 3, docs/on-disk-format.md "Persist rounds" and "Load rules"): a
// torn or unacknowledged write of the uncommitted round falls back to the committed copy; damage
// to committed metadata, a stale superblock, duplicate mappings and crafted sizes are Corruption.
#include <gtest/gtest.h>

#include <functional>

#include "cachelib/device/device_wrapper.h"
#include "cachelib/device/memory_device.h"
#include "cachelib/metadata/metadata_store.h"
#include "cachelib/metadata/metadata_test_util.h"
#include "cachelib/metadata/superblock.h"

namespace tiercache {
namespace {

using testing::CountingDevice;
using testing::MakeRecord;
using testing::SyncFormat;
using testing::SyncOpen;
using testing::SyncPersist;

const CoreIdentity kCore{"/dev/hdd0", 10ull << 30, 0x1234};
constexpr uint32_t kLineSize = 64 * 1024;  // 16 sectors, 336 records per page

class MetadataRoundsTest : public ::testing::Test {
 protected:
  std::unique_ptr<MetadataStore> FormatAndOpen(uint32_t line_size = kLineSize) {
    FormatOptions o;
    o.line_size = line_size;
    EXPECT_TRUE(SyncFormat(loop_, ssd_, kCore, o).ok());
    return Reopen();
  }
  std::unique_ptr<MetadataStore> Reopen() {
    auto r = SyncOpen(loop_, ssd_, kCore);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::move(r).value() : nullptr;
  }
  Status OpenStatus() { return SyncOpen(loop_, ssd_, kCore).status(); }
  // Rewrites both superblock copies through `edit` (what a crash at another point leaves).
  void EditSuperblocks(const std::function<void(Superblock&)>& edit) {
    std::vector<std::byte> copy(format::kBlockSize);
    for (uint64_t at : format::kSuperblockOffset) {
      ssd_.read_now(at, copy);
      DecodedSuperblock d = DecodeSuperblock(copy);
      ASSERT_EQ(d.state, SuperblockState::kValid);
      edit(d.sb);
      EncodeSuperblock(d.sb, copy);
      ssd_.write_now(at, copy);
    }
  }
  uint64_t SlotRound(uint64_t page, uint32_t slot) {
    std::vector<std::byte> b(format::kBlockSize);
    ssd_.read_now(testing::LayoutOnDevice(ssd_).slot_offset(page, slot), b);
    return format::GetU64(b, format::slot::kSequence);
  }
  void Scribble(uint64_t offset) {
    std::vector<std::byte> junk(512, std::byte{0xA5});
    ssd_.write_now(offset, junk);
  }
  // Round 1 writes v1 to lines 5 (page 0) and 400 (page 1), slot B; round 2 writes v2, slot A.
  void TwoRounds() {
    auto store = FormatAndOpen();
    store->set_record(5, v1_);
    store->set_record(400, w1_);
    ASSERT_TRUE(SyncPersist(loop_, *store).ok());
    store->set_record(5, v2_);
    store->set_record(400, w2_);
    ASSERT_TRUE(SyncPersist(loop_, *store).ok());
    ASSERT_EQ(SlotRound(0, 1), 1u);
    ASSERT_EQ(SlotRound(0, 0), 2u);
    ASSERT_EQ(SlotRound(1, 0), 2u);
  }
  // The state a crash between round 2's page writes and its commit leaves.
  void UncommitRoundTwo() {
    EditSuperblocks([](Superblock& sb) {  // one copy holds round 2's intent, one its commit
      ASSERT_EQ(sb.intent_round, 2u);
      ASSERT_EQ(sb.intent_pages, (std::vector<uint64_t>{0, 1}));
      sb.committed_round = 1;
    });
  }

  SimEventLoop loop_;
  MemoryDevice ssd_{"ssd0", 64ull << 20};
  LineRecord v1_ = MakeRecord(1, 100, 16, true), v2_ = MakeRecord(2, 200, 16, true);
  LineRecord w1_ = MakeRecord(3, 300, 16, true), w2_ = MakeRecord(4, 400, 16, true);
};

TEST_F(MetadataRoundsTest, TornSlotOfTheUncommittedRoundFallsBackForTheWholeRound) {
  TwoRounds();
  UncommitRoundTwo();
  Scribble(testing::LayoutOnDevice(ssd_).slot_offset(1, 0) + 1024);  // page 1's round-2 slot
  auto store = Reopen();
  ASSERT_NE(store, nullptr);
  // Page 0's round-2 slot is whole but its round never committed: the round loads as a unit.
  EXPECT_EQ(store->loaded_record(5), v1_);
  EXPECT_EQ(store->loaded_record(400), w1_);
  // The next persist overwrites both round-2 slots, as round 3, so they can never look committed.
  ASSERT_TRUE(SyncPersist(loop_, *store).ok());
  EXPECT_EQ(SlotRound(0, 0), 3u);
  EXPECT_EQ(SlotRound(1, 0), 3u);
  EXPECT_EQ(testing::RecordsOnDevice(ssd_)[5], v1_);
}

TEST_F(MetadataRoundsTest, AWhollyWrittenUncommittedRoundRollsForward) {
  TwoRounds();
  UncommitRoundTwo();
  auto store = Reopen();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->loaded_record(5), v2_);
  EXPECT_EQ(store->loaded_record(400), w2_);
  std::vector<std::byte> area(format::kSuperblockAreaSize);
  ssd_.read_now(0, area);
  for (uint64_t at : format::kSuperblockOffset) {  // open wrote the decision to both copies
    EXPECT_EQ(DecodeSuperblock(std::span(area).subspan(at, format::kBlockSize)).sb.committed_round,
              2u);
  }
}

TEST_F(MetadataRoundsTest, DamagedSlotOfACommittedRoundIsCorruption) {
  TwoRounds();
  Scribble(testing::LayoutOnDevice(ssd_).slot_offset(1, 0) + 1024);
  Status s = OpenStatus();
  EXPECT_EQ(s.code(), Status::Code::kCorruption);
  EXPECT_EQ(s.message(),
            "ssd0: metadata page 1 slot A fails its checksum, and no uncommitted round wrote it: "
            "committed metadata is damaged");
}

TEST_F(MetadataRoundsTest, ADamagedSuperblockCopyFallsBackWithoutLosingTheCommittedRound) {
  TwoRounds();
  std::vector<std::byte> area(format::kSuperblockAreaSize);
  ssd_.read_now(0, area);
  auto newest = LoadSuperblock(area, "ssd0");
  ASSERT_TRUE(newest.ok());
  ASSERT_EQ(newest->sb.committed_round, 2u);
  // The other copy holds round 2's intent: a torn commit write (or damage) leaves it.
  Scribble(format::kSuperblockOffset[newest->copy] + 1024);
  auto store = Reopen();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->loaded_record(5), v2_);
  EXPECT_EQ(store->loaded_record(400), w2_);
}

TEST_F(MetadataRoundsTest, AStaleSuperblockIsCorruption) {
  auto store = FormatAndOpen();
  store->set_record(5, v1_);
  ASSERT_TRUE(SyncPersist(loop_, *store).ok());
  std::vector<std::byte> old_area(format::kSuperblockAreaSize);
  ssd_.read_now(0, old_area);  // knows rounds up to 1
  store->set_record(5, v2_);
  ASSERT_TRUE(SyncPersist(loop_, *store).ok());
  store.reset();
  ssd_.write_now(0, old_area);
  Status s = OpenStatus();
  EXPECT_EQ(s.code(), Status::Code::kCorruption);
  EXPECT_EQ(s.message(),
            "ssd0: metadata page 0 slot A was written in round 2, after the last round the "
            "superblock knows (1): the superblock is stale");
}

TEST_F(MetadataRoundsTest, DuplicateMappingsAreCorruption) {
  auto store = FormatAndOpen();
  store->set_record(3, MakeRecord(1, 42, 16, true));
  store->set_record(400, MakeRecord(2, 42, 16, true));
  ASSERT_TRUE(SyncPersist(loop_, *store).ok());
  store.reset();
  Status s = OpenStatus();
  EXPECT_EQ(s.code(), Status::Code::kCorruption);
  EXPECT_EQ(s.message(), "ssd0: lines 3 and 400 both map core line 42");
}

// The one tolerated duplicate: a write-back write moved the block to a fresh line (dirty) and the
// old line's free record did not commit. The dirty record wins; the clean one is freed, on the
// SSD too at the next persist.
TEST_F(MetadataRoundsTest, ACleanRecordDuplicatingADirtyOneIsDropped) {
  auto store = FormatAndOpen();
  const LineRecord dirty = MakeRecord(2, 42, 16, true);
  store->set_record(3, MakeRecord(1, 42, 16, false));
  store->set_record(400, dirty);
  ASSERT_TRUE(SyncPersist(loop_, *store).ok());
  store.reset();
  auto again = Reopen();
  EXPECT_FALSE(again->loaded_record(3).in_use());
  EXPECT_EQ(again->loaded_record(400), dirty);
  ASSERT_TRUE(SyncPersist(loop_, *again).ok());
  EXPECT_FALSE(testing::RecordsOnDevice(ssd_)[3].in_use());
  EXPECT_EQ(testing::RecordsOnDevice(ssd_)[400], dirty);
}

// Two clean records (or a third) for one block are never written: Corruption.
TEST_F(MetadataRoundsTest, TwoCleanRecordsForOneBlockAreCorruption) {
  auto store = FormatAndOpen();
  store->set_record(3, MakeRecord(1, 42, 16, false));
  store->set_record(400, MakeRecord(2, 42, 16, false));
  ASSERT_TRUE(SyncPersist(loop_, *store).ok());
  store.reset();
  Status s = OpenStatus();
  EXPECT_EQ(s.code(), Status::Code::kCorruption);
  EXPECT_EQ(s.message(), "ssd0: lines 3 and 400 both map core line 42");
}

TEST_F(MetadataRoundsTest, CraftedSizesAreCorruptionNotACrash) {
  FormatAndOpen().reset();
  std::vector<std::byte> copy(format::kBlockSize);
  for (uint64_t at : format::kSuperblockOffset) {
    ssd_.read_now(at, copy);
    // line_count * line_size = 2^64 wraps to 0, which "fits" any SSD without the overflow check.
    format::PutU32(copy, format::sb::kLineSize, 1u << 20);
    format::PutU64(copy, format::sb::kLineCount, 1ull << 44);
    format::PutU64(copy, format::sb::kChecksum, format::Checksum(std::span(copy).subspan(16)));
    ssd_.write_now(at, copy);
  }
  Status s = OpenStatus();
  EXPECT_EQ(s.code(), Status::Code::kCorruption);
  EXPECT_EQ(s.message(),
            "tiercache superblock copy 0 on ssd0 has a valid checksum but inconsistent fields "
            "(sizes, rounds or names out of range); refusing to fall back to the other copy");
}

TEST_F(MetadataRoundsTest, APersistTakesThreeFlushesPerRoundOf256Pages) {
  MemoryDevice big("ssd1", 1ull << 30);  // 4 KiB lines: 648 pages
  FormatOptions o;
  o.line_size = 4096;
  ASSERT_TRUE(SyncFormat(loop_, big, kCore, o).ok());
  CountingDevice counting(big);
  auto opened = SyncOpen(loop_, counting, kCore);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  auto& store = **opened;
  EXPECT_EQ(counting.writes, 2u);  // open: both superblock copies, each flushed
  EXPECT_EQ(counting.flushes, 2u);
  counting.writes = counting.flushes = 0;
  ASSERT_TRUE(SyncPersist(loop_, store).ok());  // nothing changed: the engine's FLUSH
  EXPECT_EQ(counting.writes, 0u);
  EXPECT_EQ(counting.flushes, 1u);
  counting.writes = counting.flushes = 0;
  store.set_record(7, MakeRecord(1, 7, 1, true));
  ASSERT_TRUE(SyncPersist(loop_, store).ok());  // intent, flush, page, flush, commit, flush
  EXPECT_EQ(counting.writes, 3u);
  EXPECT_EQ(counting.flushes, 3u);
  counting.writes = counting.flushes = 0;
  for (uint64_t page = 0; page < 300; ++page) {
    store.set_record(page * 403, MakeRecord(page, 1000 + page, 1, true));
  }
  ASSERT_TRUE(SyncPersist(loop_, store).ok());  // two rounds: 256 + 44 pages
  EXPECT_EQ(counting.writes, 300u + 4);
  EXPECT_EQ(counting.flushes, 6u);
  opened->reset();
  auto again = SyncOpen(loop_, big, kCore);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ((*again)->loaded_record(299 * 403), MakeRecord(299, 1299, 1, true));
}

// The pages of a round that did not commit go into the first round of the next persist, even when
// that persist needs several rounds: its intent then covers every slot the failed round may have
// left, so none of them can outlive it and later pass for committed.
TEST_F(MetadataRoundsTest, PagesOfAnUncommittedRoundAreRewrittenInTheNextFirstRound) {
  MemoryDevice big("ssd1", 1ull << 30);  // 4 KiB lines: 403 lines per page, 648 pages
  FormatOptions o;
  o.line_size = 4096;
  ASSERT_TRUE(SyncFormat(loop_, big, kCore, o).ok());
  auto store = std::move(SyncOpen(loop_, big, kCore)).value();
  for (uint64_t round = 1; round <= 2; ++round) {
    store->set_record(600 * 403, MakeRecord(round, 5000, 1, true));
    store->set_record(601 * 403, MakeRecord(round, 5001, 1, true));
    ASSERT_TRUE(SyncPersist(loop_, *store).ok());
  }
  store.reset();
  std::vector<std::byte> copy(format::kBlockSize);
  for (uint64_t at : format::kSuperblockOffset) {  // round 2 did not commit...
    big.read_now(at, copy);
    DecodedSuperblock d = DecodeSuperblock(copy);
    d.sb.committed_round = 1;
    EncodeSuperblock(d.sb, copy);
    big.write_now(at, copy);
  }
  format::Layout l = testing::LayoutOnDevice(big);
  std::vector<std::byte> junk(512, std::byte{0xA5});
  big.write_now(l.slot_offset(601, 0) + 1024, junk);  // ...and page 601's write was torn
  store = std::move(SyncOpen(loop_, big, kCore)).value();
  EXPECT_EQ(store->loaded_record(600 * 403), MakeRecord(1, 5000, 1, true));
  for (uint64_t page = 0; page < 300; ++page) {
    store->set_record(page * 403, MakeRecord(page, 1000 + page, 1, true));
  }
  ASSERT_TRUE(SyncPersist(loop_, *store).ok());  // rounds 3 (256 pages) and 4 (46 pages)
  auto round_of = [&](uint64_t page, uint32_t slot) {
    big.read_now(l.slot_offset(page, slot), copy);
    return format::GetU64(copy, format::slot::kSequence);
  };
  EXPECT_EQ(round_of(600, 0), 3u);
  EXPECT_EQ(round_of(601, 0), 3u);
  EXPECT_EQ(round_of(299, 1), 4u);
  store.reset();
  auto again = SyncOpen(loop_, big, kCore);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ((*again)->loaded_record(601 * 403), MakeRecord(1, 5001, 1, true));
}

}  // namespace
}  // namespace tiercache
