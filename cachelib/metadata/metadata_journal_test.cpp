// The record journal (format version 6, docs/on-disk-format.md "Record journal"): with a record
// source (the engine's live state), a persist appends the changed lines' records to the journal
// in one round (flush, blocks, flush) instead of rewriting their pages; the load replays whole
// rounds over the pages; a full journal, a restart and a clean close end the epoch with a page
// checkpoint. Exact write and flush counts, exact records, exact errors.
#include <gtest/gtest.h>

#include <functional>
#include <map>

#include "cachelib/device/memory_device.h"
#include "cachelib/metadata/journal_block.h"
#include "cachelib/metadata/metadata_store.h"
#include "cachelib/metadata/metadata_test_util.h"
#include "cachelib/metadata/superblock.h"

namespace tiercache {
namespace {

using testing::CountingDevice;
using testing::MakeRecord;
using testing::SyncCloseClean;
using testing::SyncFormat;
using testing::SyncOpen;
using testing::SyncPersist;

const CoreIdentity kCore{"/dev/hdd0", 10ull << 30, 0x1234};
constexpr uint32_t kLineSize = 64 * 1024;  // 16 sectors: 336 records per page, 201 per block

// Steps on any region, at the thresholds steps started with in session 10: one step above three
// quarters of the journal, up to four above seven eighths. Most tests here count steps at these,
// which a 16-block journal resolves (12 and 14 blocks); MetadataStepThresholdTest counts them at
// the defaults.
constexpr StoreOptions kSession10Steps{
    .steps_above_pages = 0, .one_step_above = {3, 4}, .four_steps_above = {7, 8}};

class MetadataJournalTest : public ::testing::Test {
 protected:
  // The default: 1022 lines, 4 pages, a 16-block journal.
  explicit MetadataJournalTest(uint64_t ssd_bytes = 64ull << 20, uint64_t journal_blocks = 16)
      : ssd_("ssd0", ssd_bytes), journal_blocks_(journal_blocks) {}
  void SetUp() override {
    FormatOptions o;
    o.line_size = kLineSize;
    ASSERT_TRUE(SyncFormat(loop_, ssd_, kCore, o).ok());
    layout_ = testing::LayoutOnDevice(ssd_);
    ASSERT_EQ(layout_.journal_blocks, journal_blocks_);
    ASSERT_EQ(layout_.journal_entries_per_block, 201u);
  }
  // Opens through `counting` and hands the store the live records, as the engine does. This
  // small region takes steps only when asked to (StoreOptions), as these tests do by default.
  std::unique_ptr<MetadataStore> Open(StoreOptions options = kSession10Steps) {
    auto r = SyncOpen(loop_, counting_, kCore, options);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return nullptr;
    std::unique_ptr<MetadataStore> store = std::move(r).value();
    // As the engine takes them: for_each_loaded skips pages no round ever wrote.
    store->for_each_loaded([this](uint64_t line, const LineRecord& r) { live_[line] = r; });
    store->release_loaded();
    store->set_record_source([this](uint64_t first, std::span<LineRecord> out) {
      for (size_t i = 0; i < out.size(); ++i) {
        auto it = live_.find(first + i);
        out[i] = it == live_.end() ? LineRecord{} : it->second;
      }
    });
    counting_.writes = counting_.flushes = 0;
    return store;
  }
  void Change(MetadataStore& store, uint64_t line, const LineRecord& rec) {
    live_[line] = rec;
    store.mark_changed(line);
  }
  Superblock NewestSuperblock() {
    std::vector<std::byte> area(format::kSuperblockAreaSize);
    ssd_.read_now(0, area);
    return LoadSuperblock(area, "ssd0")->sb;
  }
  uint64_t SlotRound(uint64_t page, uint32_t slot) {
    std::vector<std::byte> b(format::kBlockSize);
    ssd_.read_now(layout_.slot_offset(page, slot), b);
    return format::GetU64(b, format::slot::kSequence);
  }
  JournalHeader BlockHeader(uint64_t index) {
    std::vector<std::byte> b(format::kBlockSize);
    ssd_.read_now(layout_.journal_block_offset(index), b);
    JournalHeader h;
    EXPECT_EQ(CheckJournalBlock(layout_, b, NewestSuperblock().uuid, &h),
              JournalBlockState::kValid);
    return h;
  }
  void Scribble(uint64_t offset) {
    std::vector<std::byte> junk(512, std::byte{0xA5});
    ssd_.write_now(offset, junk);
  }
  Status OpenStatus() { return SyncOpen(loop_, ssd_, kCore).status(); }
  // Damages journal block `block` (a torn write's bytes) and expects the load to name round
  // `missing` as lost before round `later`.
  void ExpectMissingRound(uint64_t block, uint64_t missing, uint64_t later) {
    Scribble(layout_.journal_block_offset(block) + 1024);
    Status s = OpenStatus();
    EXPECT_EQ(s.code(), Status::Code::kCorruption);
    EXPECT_EQ(s.message(), "ssd0: journal round " + std::to_string(missing) +
                               " is missing but round " + std::to_string(later) +
                               " was written after it: the journal is damaged");
  }
  // A crash (no clean close): the reopened store loads every record as it was.
  void CrashAndExpectEveryRecord(std::unique_ptr<MetadataStore>& store) {
    const std::map<uint64_t, LineRecord> expected = live_;
    store.reset();
    live_.clear();
    store = Open();
    EXPECT_EQ(live_, expected);
  }
  // Rewrites journal block `index` through `edit`, with a valid checksum: a whole write of bad
  // content, not a torn one.
  void EditJournalBlock(uint64_t index, const std::function<void(std::span<std::byte>)>& edit) {
    std::vector<std::byte> b(format::kBlockSize);
    ssd_.read_now(layout_.journal_block_offset(index), b);
    edit(b);
    format::PutU64(b, format::journal::kChecksum, format::Checksum(std::span(b).subspan(16)));
    ssd_.write_now(layout_.journal_block_offset(index), b);
  }
  void ChangeLines(MetadataStore& store, uint64_t first, uint64_t end, uint64_t seed) {
    for (uint64_t line = first; line < end; ++line) {
      Change(store, line, MakeRecord(seed + line, line, 16, line % 2 == 0));
    }
  }
  // Rounds 1-6, two blocks each, of the whole of page 0, 1, 2, 0, 1 and 2 (12 blocks used).
  void SixRoundsOfOnePage(MetadataStore& store) {
    for (uint64_t round = 0; round < 6; ++round) {
      const uint64_t first = round % 3 * 336;
      ChangeLines(store, first, first + 336, round * 2000);
      counting_.writes = counting_.flushes = 0;
      ASSERT_TRUE(SyncPersist(loop_, store).ok());
      ASSERT_EQ(counting_.writes, 2u);
    }
  }
  // Two journal rounds: 5 = v1 and 400 = w1, then 5 = v2.
  void TwoJournalRounds() {
    auto store = Open();
    Change(*store, 5, v1_);
    Change(*store, 400, w1_);
    ASSERT_TRUE(SyncPersist(loop_, *store).ok());
    Change(*store, 5, v2_);
    ASSERT_TRUE(SyncPersist(loop_, *store).ok());
    EXPECT_EQ(SlotRound(0, 0) + SlotRound(0, 1), 0u);  // no page was written
  }

  SimEventLoop loop_;
  MemoryDevice ssd_;
  const uint64_t journal_blocks_;
  CountingDevice counting_{ssd_};
  format::Layout layout_;
  std::map<uint64_t, LineRecord> live_;
  LineRecord v1_ = MakeRecord(1, 100, 16, true), v2_ = MakeRecord(2, 200, 16, true);
  LineRecord w1_ = MakeRecord(3, 300, 16, false);
};

TEST_F(MetadataJournalTest, AFewChangesAreOneJournalBlockAndTwoFlushes) {
  auto store = Open();
  Change(*store, 5, v1_);
  Change(*store, 400, w1_);  // another page: a page persist would write 2 pages and 2 superblocks
  Change(*store, 5, v2_);    // twice in one round: one entry
  ASSERT_TRUE(SyncPersist(loop_, *store).ok());
  EXPECT_EQ(counting_.writes, 1u);
  EXPECT_EQ(counting_.flushes, 2u);  // the data the records name, then the block
  JournalHeader h = BlockHeader(0);
  EXPECT_EQ(h.round, 1u);
  EXPECT_EQ(h.blocks_in_round, 1u);
  EXPECT_EQ(h.entry_count, 2u);
  counting_.writes = counting_.flushes = 0;
  ASSERT_TRUE(SyncPersist(loop_, *store).ok());  // nothing new: the engine's FLUSH
  EXPECT_EQ(counting_.writes, 0u);
  EXPECT_EQ(counting_.flushes, 1u);
}

TEST_F(MetadataJournalTest, RoundsAreReplayedAfterACrashAndTheFirstPersistCheckpoints) {
  TwoJournalRounds();
  live_.clear();
  auto store = Open();  // no clean close: the journal is what holds the records
  EXPECT_EQ(live_[5], v2_);
  EXPECT_EQ(live_[400], w1_);
  EXPECT_EQ(live_.size(), 2u);
  Change(*store, 7, w1_);  // another record for the same core line would be refused: free 400
  Change(*store, 400, LineRecord{});
  ASSERT_TRUE(SyncPersist(loop_, *store).ok());
  // A checkpoint of pages 0 and 1 (the journal's pages too), round 3: intent, pages, commit.
  EXPECT_EQ(counting_.writes, 4u);
  EXPECT_EQ(counting_.flushes, 3u);
  EXPECT_EQ(SlotRound(0, 1), 3u);
  EXPECT_EQ(SlotRound(1, 1), 3u);
  EXPECT_EQ(NewestSuperblock().journal_start_round, 4u);  // rounds 1 and 2 are history
  counting_.writes = counting_.flushes = 0;
  Change(*store, 5, v1_);
  ASSERT_TRUE(SyncPersist(loop_, *store).ok());  // a new epoch: round 4 at block 0
  EXPECT_EQ(counting_.writes, 1u);
  EXPECT_EQ(BlockHeader(0).round, 4u);
  EXPECT_EQ(BlockHeader(1).round, 2u);  // left over, below the epoch's start: ignored
  store.reset();
  live_.clear();
  store = Open();
  EXPECT_EQ(live_, (std::map<uint64_t, LineRecord>{{5, v1_}, {7, w1_}}));
}

// A checkpoint whose commit was lost but whose pages all landed rolls forward at load; the
// journal's older entries for those pages must not undo it.
TEST_F(MetadataJournalTest, APageNewerThanAnEntryWins) {
  auto store = Open();
  Change(*store, 5, v1_);
  ASSERT_TRUE(SyncPersist(loop_, *store).ok());  // round 1, journal
  Change(*store, 5, v2_);
  store.reset();  // a clean close checkpoints; a crash after the checkpoint's pages is wanted:
  store = Open();
  live_[5] = v2_;  // the change after the crash, again
  store->mark_changed(5);
  ASSERT_TRUE(SyncPersist(loop_, *store).ok());  // a checkpoint (the journal is not empty): round 2
  ASSERT_EQ(SlotRound(0, 1), 2u);
  std::vector<std::byte> copy(format::kBlockSize);
  for (uint64_t at : format::kSuperblockOffset) {  // as if round 2's commit never landed
    ssd_.read_now(at, copy);
    DecodedSuperblock d = DecodeSuperblock(copy);
    ASSERT_EQ(d.state, SuperblockState::kValid);
    ASSERT_EQ(d.sb.intent_round, 2u);
    d.sb.committed_round = 0;
    d.sb.journal_start_round = 1;
    EncodeSuperblock(d.sb, copy);
    ssd_.write_now(at, copy);
  }
  store.reset();
  live_.clear();
  store = Open();
  EXPECT_EQ(live_[5], v2_);  // the page of round 2, not the entry of round 1
}

TEST_F(MetadataJournalTest, ATornNewestRoundIsDropped) {
  TwoJournalRounds();
  Scribble(layout_.journal_block_offset(1) + 1024);  // round 2, cut short by a crash
  live_.clear();
  auto store = Open();
  EXPECT_EQ(live_[5], v1_);
  EXPECT_EQ(live_[400], w1_);
}

TEST_F(MetadataJournalTest, ADamagedOlderRoundIsCorruption) {
  TwoJournalRounds();
  ExpectMissingRound(0, 1, 2);
}

TEST_F(MetadataJournalTest, AnOlderRoundMissingABlockIsCorruption) {
  auto store = Open();
  for (uint64_t line = 0; line < 300; ++line) {
    Change(*store, line, MakeRecord(line, line, 16, true));
  }
  ASSERT_TRUE(SyncPersist(loop_, *store).ok());  // round 1: blocks 0 and 1
  Change(*store, 5, v1_);
  ASSERT_TRUE(SyncPersist(loop_, *store).ok());  // round 2: block 2
  Scribble(layout_.journal_block_offset(1) + 1024);
  Status s = OpenStatus();
  EXPECT_EQ(s.code(), Status::Code::kCorruption);
  EXPECT_EQ(s.message(), "ssd0: journal round 1 is missing blocks but a later round was written "
                         "after it: the journal is damaged");
}

TEST_F(MetadataJournalTest, ABlockOfAnotherCacheIsCorruption) {
  TwoJournalRounds();
  EditJournalBlock(1, [](std::span<std::byte> b) {
    format::PutU8(b, format::journal::kUuid, 0x77);  // another cache's block
  });
  Status s = OpenStatus();
  EXPECT_EQ(s.code(), Status::Code::kCorruption);
  EXPECT_EQ(s.message(), "ssd0: journal block 1 has a valid checksum but a wrong header (cache "
                         "uuid or counts)");
}

TEST_F(MetadataJournalTest, AnEntryBeyondTheCacheIsCorruption) {
  TwoJournalRounds();
  EditJournalBlock(1, [](std::span<std::byte> b) {
    format::PutU64(b, format::journal::kHeaderSize, 5000);  // entry 0's line
  });
  Status s = OpenStatus();
  EXPECT_EQ(s.code(), Status::Code::kCorruption);
  EXPECT_EQ(s.message(), "ssd0: journal block 1 entry 0: line 5000 beyond the cache (1022 lines)");
}

// Past three quarters of the journal (12 of its 16 blocks; kSession10Steps), a persist's journal
// round is followed by a step: the page with the oldest journaled change (a quarter of the 4
// pages) as a page round with a marker block, whose commit moves the epoch's start to the oldest
// round still needed; past seven eighths, by up to four steps.
TEST_F(MetadataJournalTest, StepsFreeTheOldestRoundsAndTheRingWraps) {
  auto store = Open();
  SixRoundsOfOnePage(*store);  // rounds 1-6 in blocks 0-11: pages 0, 1, 2, 0, 1, 2
  EXPECT_EQ(SlotRound(0, 0) + SlotRound(0, 1), 0u);  // 12 used: no step yet
  Change(*store, 1010, MakeRecord(11, 9001, 16, true));  // page 3: round 7, block 12
  counting_.writes = counting_.flushes = 0;
  ASSERT_TRUE(SyncPersist(loop_, *store).ok());
  // 13 used: one step, page 0 (round 1) as round 8, and round 7 rides with it: intent, flush,
  // round 7's block and the page, flush, marker and commit, flush. Page 1 still needs round 2,
  // so the epoch starts there and round 1's two blocks are free: 12 used.
  EXPECT_EQ(counting_.writes, 5u);
  EXPECT_EQ(counting_.flushes, 3u);
  EXPECT_EQ(SlotRound(0, 1), 8u);
  EXPECT_EQ(BlockHeader(13).round, 8u);
  EXPECT_EQ(BlockHeader(13).entry_count, 0u);
  EXPECT_EQ(NewestSuperblock().journal_start_round, 2u);
  ChangeLines(*store, 0, 501, 6000);  // pages 0-1: round 9 in blocks 14, 15 and 0 (freed)
  counting_.writes = counting_.flushes = 0;
  ASSERT_TRUE(SyncPersist(loop_, *store).ok());
  // 15 used: up to four steps. Page 1 (round 2) as round 10 with round 9 riding, its marker in
  // block 1; the start moves to 3, 14 used: no more.
  EXPECT_EQ(counting_.writes, 3u + 4);
  EXPECT_EQ(counting_.flushes, 3u);
  EXPECT_EQ(BlockHeader(15).round, 9u);
  EXPECT_EQ(BlockHeader(0).round, 9u);
  EXPECT_EQ(BlockHeader(0).block_in_round, 2u);
  EXPECT_EQ(BlockHeader(1).round, 10u);
  EXPECT_EQ(SlotRound(1, 1), 10u);
  const Superblock sb = NewestSuperblock();
  EXPECT_EQ(sb.journal_start_round, 3u);
  EXPECT_EQ(sb.committed_round, 10u);
  EXPECT_EQ(BlockHeader(2).round, 2u);  // left over, below the epoch's start: ignored
  const MetadataCounters c = store->counters();
  EXPECT_EQ(c.journal_rounds, 8u);
  EXPECT_EQ(c.steps, 2u);
  EXPECT_EQ(c.checkpoints, 0u);
  EXPECT_EQ(c.journal_blocks_used, 14u);  // rounds 3-7 (9 blocks), 8, 9 (3 blocks), 10
  EXPECT_EQ(c.journal_blocks, 16u);
  CrashAndExpectEveryRecord(store);  // rounds 3-10, around the ring's end
}

// The newest superblock copy damaged at rest (QA, 2026-12-07): the load falls back to the other
// copy, the intent of the same round, and rolls it forward; the commit it lost had moved the
// epoch's start, and the ring has since reused the blocks of the rounds below. The epoch then
// starts at the first round from which every round is there, and nothing is lost.
TEST_F(MetadataJournalTest, TheNewestSuperblockDamagedAfterAStepLosesNothing) {
  auto store = Open();
  SixRoundsOfOnePage(*store);
  Change(*store, 1010, MakeRecord(11, 9001, 16, true));
  ASSERT_TRUE(SyncPersist(loop_, *store).ok());  // round 7 and the step of page 0 (round 8)
  ChangeLines(*store, 0, 501, 6000);
  ASSERT_TRUE(SyncPersist(loop_, *store).ok());  // round 9 and the step of page 1 (round 10)
  Change(*store, 1011, MakeRecord(12, 9002, 16, false));
  // Round 11 in block 2, and the step of page 2 (round 12, its marker in block 3) moves the
  // epoch's start from 3 to 7.
  ASSERT_TRUE(SyncPersist(loop_, *store).ok());
  Change(*store, 1012, MakeRecord(13, 9003, 16, true));
  ASSERT_TRUE(SyncPersist(loop_, *store).ok());  // round 13 in block 4: round 3 is torn
  EXPECT_EQ(BlockHeader(4).round, 13u);
  EXPECT_EQ(BlockHeader(5).round, 3u);
  std::vector<std::byte> area(format::kSuperblockAreaSize);
  ssd_.read_now(0, area);
  const LoadedSuperblock newest = LoadSuperblock(area, "ssd0").value();
  ASSERT_GT(newest.sb.journal_start_round, 2u);
  Scribble(newest.copy * format::kBlockSize + 300);
  ssd_.read_now(0, area);
  const LoadedSuperblock fallback = LoadSuperblock(area, "ssd0").value();
  ASSERT_EQ(fallback.copy, 1 - newest.copy);
  ASSERT_GT(fallback.sb.intent_round, fallback.sb.committed_round);
  ASSERT_LT(fallback.sb.journal_start_round, newest.sb.journal_start_round);
  CrashAndExpectEveryRecord(store);
}

// A step whose commit leaves older rounds needed: its marker fills the epoch's sequence of
// rounds, so a later round reads as consecutive, and losing the marker reads as damage.
TEST_F(MetadataJournalTest, AStepLeavesAMarkerThatKeepsTheEpochConsecutive) {
  auto store = Open();
  SixRoundsOfOnePage(*store);
  Change(*store, 1010, MakeRecord(11, 9001, 16, true));
  ASSERT_TRUE(SyncPersist(loop_, *store).ok());  // round 7, then the step: round 8, block 13
  Change(*store, 1011, MakeRecord(12, 9002, 16, false));
  ASSERT_TRUE(SyncPersist(loop_, *store).ok());  // round 9, then the step of page 1: round 10
  EXPECT_EQ(NewestSuperblock().journal_start_round, 3u);  // round 8's marker is in the epoch
  EXPECT_EQ(BlockHeader(14).round, 9u);
  CrashAndExpectEveryRecord(store);
  store.reset();
  ExpectMissingRound(13, 8, 9);
}

// A step's failure fails its persist (the SSD is failing) and leaves no gap: the next persist is
// a checkpoint that ends the epoch.
TEST_F(MetadataJournalTest, AFailedStepFailsThePersistAndTheNextOneCheckpoints) {
  auto store = Open();
  SixRoundsOfOnePage(*store);
  Change(*store, 1010, MakeRecord(11, 9001, 16, true));
  counting_.writes = 0;
  counting_.fail_from_write = 3;  // the step's intent and page pass, round 7's block fails
  EXPECT_EQ(SyncPersist(loop_, *store).code(), Status::Code::kIoError);
  counting_.fail_from_write = ~uint64_t{0};
  counting_.writes = counting_.flushes = 0;
  ASSERT_TRUE(SyncPersist(loop_, *store).ok());
  // Round 9: the 4 changed pages (page 0 again, into the slot round 8 may have reached).
  EXPECT_EQ(counting_.writes, 4u + 2);
  EXPECT_EQ(counting_.flushes, 3u);
  EXPECT_EQ(SlotRound(0, 1), 9u);
  EXPECT_EQ(NewestSuperblock().journal_start_round, 10u);
  EXPECT_EQ(store->counters().checkpoints, 1u);
  EXPECT_EQ(store->counters().journal_blocks_used, 0u);  // a new epoch
  CrashAndExpectEveryRecord(store);
}

// A region of at most four steps' pages (the default StoreOptions) takes no steps: its journal
// fills, keeping one block free for a marker, and the round that does not fit is a checkpoint.
TEST_F(MetadataJournalTest, ASmallRegionCheckpointsWhenItsJournalFills) {
  auto store = Open(StoreOptions{});
  SixRoundsOfOnePage(*store);  // 12 of 16 blocks used
  for (uint64_t round = 7; round <= 9; ++round) {  // blocks 12, 13 and 14: no step
    Change(*store, 1010, MakeRecord(round, 9000 + round, 16, true));
    counting_.writes = counting_.flushes = 0;
    ASSERT_TRUE(SyncPersist(loop_, *store).ok());
    EXPECT_EQ(counting_.writes, 1u);
    EXPECT_EQ(counting_.flushes, 2u);
  }
  EXPECT_EQ(store->counters().journal_blocks_used, 15u);
  Change(*store, 1010, MakeRecord(10, 9010, 16, true));
  counting_.writes = counting_.flushes = 0;
  ASSERT_TRUE(SyncPersist(loop_, *store).ok());
  // Round 10: intent, the 4 pages, commit; a new epoch.
  EXPECT_EQ(counting_.writes, 4u + 2);
  EXPECT_EQ(counting_.flushes, 3u);
  const MetadataCounters c = store->counters();
  EXPECT_EQ(c.journal_rounds, 9u);
  EXPECT_EQ(c.steps, 0u);
  EXPECT_EQ(c.checkpoints, 1u);
  EXPECT_EQ(c.journal_blocks_used, 0u);
  EXPECT_EQ(NewestSuperblock().journal_start_round, 11u);
  CrashAndExpectEveryRecord(store);
}

TEST_F(MetadataJournalTest, MoreChangesThanTheJournalHoldsCheckpoint) {
  auto store = Open();
  for (uint64_t i = 0; i <= 16 * 201; ++i) Change(*store, 5, i % 2 ? v1_ : v2_);  // ends on v2
  ASSERT_TRUE(SyncPersist(loop_, *store).ok());
  EXPECT_EQ(counting_.writes, 3u);  // intent, page 0, commit
  EXPECT_EQ(counting_.flushes, 3u);
  counting_.writes = counting_.flushes = 0;
  Change(*store, 5, v1_);
  ASSERT_TRUE(SyncPersist(loop_, *store).ok());  // the list is bounded again: a journal round
  EXPECT_EQ(counting_.writes, 1u);
  EXPECT_EQ(counting_.flushes, 2u);
}

TEST_F(MetadataJournalTest, ACleanCloseLeavesAnEmptyJournal) {
  TwoJournalRounds();
  {
    live_.clear();
    auto store = Open();
    ASSERT_TRUE(SyncCloseClean(loop_, *store).ok());
  }
  EXPECT_EQ(NewestSuperblock().journal_start_round, 4u);  // round 3 was the checkpoint
  live_.clear();
  auto store = Open();
  EXPECT_TRUE(store->info().was_clean_shutdown);
  EXPECT_EQ(live_[5], v2_);
  Change(*store, 9, w1_);
  Change(*store, 400, LineRecord{});
  ASSERT_TRUE(SyncPersist(loop_, *store).ok());
  // Open already stopped the superblock claiming a clean shutdown: one journal round.
  EXPECT_EQ(counting_.writes, 1u);
  EXPECT_EQ(counting_.flushes, 2u);
  EXPECT_EQ(BlockHeader(0).round, 4u);
}

// 128 pages (43,008 lines): a 32-block journal, whose sixteenths are whole blocks, and steps of
// 32 pages (a quarter of the region).
class MetadataStepThresholdTest : public MetadataJournalTest {
 protected:
  MetadataStepThresholdTest()
      : MetadataJournalTest(format::LayoutFor(kLineSize, 128 * 336).required_size(), 32) {}
  // A persist, and what it wrote.
  void Persist(MetadataStore& store, uint64_t writes, uint64_t flushes) {
    counting_.writes = counting_.flushes = 0;
    ASSERT_TRUE(SyncPersist(loop_, store).ok());
    EXPECT_EQ(counting_.writes, writes);
    EXPECT_EQ(counting_.flushes, flushes);
  }
  // Four journal rounds (one block each) of the first line of every page, a quarter of the
  // region each: pages 0-31, 32-63, 64-95 and 96-127, as the recovery rounds of those pages.
  void FourQuarters(MetadataStore& store, uint64_t seed) {
    for (uint64_t first = 0; first < 128; first += 32) {
      for (uint64_t page = first; page < first + 32; ++page) {
        Change(store, page * 336, MakeRecord(seed + page, page * 336, 16, true));
      }
      Persist(store, 1, 2);
    }
  }
  // `rounds` journal rounds of page 0 (two blocks each), whose recovery round is older.
  void PageZeroRounds(MetadataStore& store, int rounds, uint64_t seed) {
    for (int i = 0; i < rounds; ++i) {
      ChangeLines(store, 0, 336, seed + 1000 * i);
      Persist(store, 2, 2);
    }
  }
};

// The default thresholds (13/16 and 7/8 of the 32 blocks: 26 and 28): no step up to 26 blocks
// used, one step at 27 and 28, a round that does not fit (one block stays free) checkpoints, and
// from 29 up to four steps, each freeing the quarter journaled first, the fourth the whole journal.
TEST_F(MetadataStepThresholdTest, OneStepAboveThirteenSixteenthsAndFourAboveSevenEighths) {
  static_assert(StoreOptions{}.one_step_above.num == 13 &&
                StoreOptions{}.one_step_above.den == 16);
  static_assert(StoreOptions{}.four_steps_above.num == 7 &&
                StoreOptions{}.four_steps_above.den == 8);
  ASSERT_EQ(layout_.page_count, 128u);
  auto store = Open(StoreOptions{.steps_above_pages = 0});
  FourQuarters(*store, 10000);        // rounds 1-4, blocks 0-3
  PageZeroRounds(*store, 11, 20000);  // rounds 5-15, blocks 4-25
  EXPECT_EQ(store->counters().journal_blocks_used, 26u);
  EXPECT_EQ(store->counters().steps, 0u);
  EXPECT_EQ(SlotRound(0, 0) + SlotRound(0, 1), 0u);
  // Round 16 (a line of page 127, whose recovery round is 4) in block 26: 27 used, one step.
  // Round 17 writes pages 0-31 (recovery round 1) with round 16 riding: intent, flush, the
  // block and 32 pages, flush, marker (block 27) and commit, flush. The start moves to round 2.
  Change(*store, 127 * 336 + 1, MakeRecord(1, 127 * 336 + 1, 16, true));
  Persist(*store, 1 + 1 + 32 + 2, 3);
  EXPECT_EQ(SlotRound(31, 1), 17u);
  EXPECT_EQ(SlotRound(32, 1), 0u);
  EXPECT_EQ(BlockHeader(27).round, 17u);
  EXPECT_EQ(NewestSuperblock().journal_start_round, 2u);
  EXPECT_EQ(store->counters().journal_blocks_used, 27u);
  // Round 18 in block 28: 28 used (7/8, not above), one step: round 19, pages 32-63, marker in
  // block 29; the start moves to round 3.
  Change(*store, 127 * 336 + 2, MakeRecord(2, 127 * 336 + 2, 16, true));
  Persist(*store, 1 + 1 + 32 + 2, 3);
  EXPECT_EQ(SlotRound(63, 1), 19u);
  EXPECT_EQ(SlotRound(64, 1), 0u);
  EXPECT_EQ(NewestSuperblock().journal_start_round, 3u);
  EXPECT_EQ(store->counters().journal_blocks_used, 28u);
  EXPECT_EQ(store->counters().steps, 2u);
  // Pages 126 and 127 (672 entries, 4 blocks) do not fit in the 4 free blocks (one stays free for
  // a marker): round 20 is a checkpoint of the 64 dirty pages (64-127), intent, pages, commit;
  // a new epoch.
  ChangeLines(*store, 126 * 336, 128 * 336, 30000);
  Persist(*store, 1 + 64 + 1, 3);
  EXPECT_EQ(SlotRound(64, 1), 20u);
  EXPECT_EQ(SlotRound(0, 1), 17u);  // clean since the step
  EXPECT_EQ(NewestSuperblock().journal_start_round, 21u);
  EXPECT_EQ(store->counters().checkpoints, 1u);
  EXPECT_EQ(store->counters().journal_blocks_used, 0u);
  FourQuarters(*store, 40000);        // rounds 21-24, blocks 0-3
  PageZeroRounds(*store, 11, 50000);  // rounds 25-35, blocks 4-25
  // Round 36: page 127 and 100 lines of page 126 (436 entries) in blocks 26-28: 29 used, up to
  // four steps. Each takes a quarter (rounds 37-40: pages 0-31, 32-63, 64-95, 96-127), its marker
  // (blocks 29, 30, 31, 0) taking a block as its commit frees one: 29 used before each. The
  // fourth leaves no page dirty: the start moves past every round.
  ChangeLines(*store, 126 * 336 + 236, 128 * 336, 60000);
  Persist(*store, (1 + 3 + 32 + 2) + 3 * (1 + 32 + 2), 4 * 3);
  EXPECT_EQ(SlotRound(0, 0), 37u);  // page 0's second write: the other slot
  EXPECT_EQ(SlotRound(127, 0), 40u);
  EXPECT_EQ(BlockHeader(29).round, 37u);
  EXPECT_EQ(BlockHeader(0).round, 40u);
  const Superblock sb = NewestSuperblock();
  EXPECT_EQ(sb.journal_start_round, 41u);
  EXPECT_EQ(sb.committed_round, 40u);
  const MetadataCounters c = store->counters();
  EXPECT_EQ(c.journal_rounds, 17u + 16);
  EXPECT_EQ(c.steps, 2u + 4);
  EXPECT_EQ(c.checkpoints, 1u);
  EXPECT_EQ(c.journal_blocks_used, 0u);
  CrashAndExpectEveryRecord(store);
}

// tiercached --journal-steps: "ONE/N,FOUR/N", checked as Open checks the thresholds.
TEST(StoreOptionsTest, ParseJournalStepsSetsBothThresholdsOrNothing) {
  StoreOptions o;
  ASSERT_TRUE(ParseJournalSteps("3/4,15/16", o).ok());
  EXPECT_EQ(o.one_step_above.ToString(), "3/4");
  EXPECT_EQ(o.four_steps_above.ToString(), "15/16");
  for (const char* bad : {"3/4", "3/4,15/16x", "a/4,1/2", "", "3/4;15/16"}) {
    const Status s = ParseJournalSteps(bad, o);
    EXPECT_EQ(s.message(), "'" + std::string(bad) + "' is not ONE/N,FOUR/N (e.g. 13/16,7/8)");
  }
  EXPECT_EQ(ParseJournalSteps("1/2,1/1", o).message(),
            "one_step_above 1/2 and four_steps_above 1/1 must satisfy one_step_above <= "
            "four_steps_above < 1");
  EXPECT_EQ(o.one_step_above.ToString(), "3/4");  // unchanged by a refusal
  EXPECT_EQ(o.four_steps_above.ToString(), "15/16");
}

// Thresholds out of order, at a full journal, or not a fraction are refused before any I/O.
TEST_F(MetadataJournalTest, StepThresholdsOutOfOrderAreRefused) {
  auto open = [this](JournalFill one, JournalFill four) {
    counting_.writes = counting_.flushes = 0;
    StoreOptions o;
    o.one_step_above = one;
    o.four_steps_above = four;
    Status s = SyncOpen(loop_, counting_, kCore, o).status();
    if (!s.ok()) {
      EXPECT_EQ(counting_.writes + counting_.flushes, 0u);
    }
    return s;
  };
  const std::string order = " must satisfy one_step_above <= four_steps_above < 1";
  Status s = open({15, 16}, {7, 8});
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(s.message(), "one_step_above 15/16 and four_steps_above 7/8" + order);
  s = open({7, 8}, {16, 16});
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(s.message(), "one_step_above 7/8 and four_steps_above 16/16" + order);
  s = open({7, 0}, {15, 16});
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "one_step_above 7/0 must be a fraction of the journal (denominator 1 to 65536)");
  s = open({7, 8}, {17, 16});
  EXPECT_EQ(s.message(),
            "four_steps_above 17/16 must be a fraction of the journal (denominator 1 to 65536)");
  s = open({1, 1ull << 17}, {1, 2});
  EXPECT_EQ(s.message(),
            "one_step_above 1/131072 must be a fraction of the journal (denominator 1 to 65536)");
  // Equal thresholds and none at all (a step after any round) are fractions in order.
  EXPECT_TRUE(open({14, 16}, {7, 8}).ok());
  EXPECT_TRUE(open({0, 1}, {0, 1}).ok());
}

}  // namespace
}  // namespace tiercache
