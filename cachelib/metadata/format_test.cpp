// Byte-level tests of the on-disk encoding: layout arithmetic, superblock copies, records, slots.
#include "cachelib/metadata/format.h"

#include <gtest/gtest.h>

#include <cstring>

#include "cachelib/metadata/metadata_page.h"
#include "cachelib/metadata/superblock.h"

namespace tiercache {
namespace {

using namespace format;

struct LayoutCase {
  uint64_t ssd_size;
  uint32_t line_size;
  uint64_t lines, record_size, records_per_page, pages, journal_blocks, entries_per_block,
      data_offset;
};

TEST(LayoutTest, LargestLineCountThatFits) {
  // Expected values worked out by hand from the documented formulas.
  const LayoutCase cases[] = {
      // journal: max(16, pages / 4) blocks of (4096 - 64) / (8 + record_size) entries
      {1ull << 30, 65536, 16376, 12, 336, 49, 16, 201, 524288},
      {1ull << 30, 4096, 260687, 10, 403, 647, 161, 224, 5967872},
      {1ull << 30, 1u << 20, 1023, 72, 56, 19, 16, 50, 1048576},
      {1000ull * (1 << 20) + 7 * 512, 8192, 127642, 10, 403, 317, 79, 224, 2932736},
      {64ull << 20, 65536, 1022, 12, 336, 4, 16, 201, 131072},
  };
  for (const LayoutCase& c : cases) {
    SCOPED_TRACE(std::to_string(c.ssd_size) + "/" + std::to_string(c.line_size));
    Layout l = LayoutForSsd(c.ssd_size, c.line_size);
    EXPECT_EQ(l.line_count, c.lines);
    EXPECT_EQ(l.record_size, c.record_size);
    EXPECT_EQ(l.records_per_page, c.records_per_page);
    EXPECT_EQ(l.page_count, c.pages);
    EXPECT_EQ(l.metadata_offset, 8192u);
    EXPECT_EQ(l.metadata_length, c.pages * 8192);
    EXPECT_EQ(l.journal_offset, 8192u + c.pages * 8192);
    EXPECT_EQ(l.journal_blocks, c.journal_blocks);
    EXPECT_EQ(l.journal_entries_per_block, c.entries_per_block);
    EXPECT_EQ(l.data_offset, c.data_offset);
    EXPECT_EQ(l.data_offset % c.line_size, 0u);
    EXPECT_LE(l.required_size(), c.ssd_size);
    EXPECT_GT(LayoutFor(c.line_size, c.lines + 1).required_size(), c.ssd_size);
  }
}

TEST(LayoutTest, SlotOffsetsAndPartialLastPage) {
  Layout l = LayoutFor(65536, 1000);  // 336 per page: 336, 336, 328
  EXPECT_EQ(l.page_count, 3u);
  EXPECT_EQ(l.slot_offset(0, 0), 8192u);
  EXPECT_EQ(l.slot_offset(0, 1), 12288u);
  EXPECT_EQ(l.slot_offset(2, 1), 8192u + 2 * 8192 + 4096);
  EXPECT_EQ(l.records_in_page(1), 336u);
  EXPECT_EQ(l.records_in_page(2), 328u);
}

TEST(EncodingTest, LittleEndianHelpers) {
  std::array<std::byte, 12> b{};
  PutU32(b, 0, 0x11223344);
  PutU64(b, 4, 0x0102030405060708ull);
  EXPECT_EQ(b[0], std::byte{0x44});
  EXPECT_EQ(b[3], std::byte{0x11});
  EXPECT_EQ(b[4], std::byte{0x08});
  EXPECT_EQ(b[11], std::byte{0x01});
  EXPECT_EQ(GetU32(b, 0), 0x11223344u);
  EXPECT_EQ(GetU64(b, 4), 0x0102030405060708ull);
}

Superblock SampleSuperblock() {
  Superblock s;
  s.sequence = 7;
  for (uint8_t i = 0; i < 16; ++i) s.uuid[i] = i + 1;
  s.core = {"/dev/disk/by-id/ata-HDD", 4ull << 40, 0xFEEDFACECAFEBEEFull};
  s.mode = CacheMode::kWriteBack;
  s.clean_shutdown = true;
  s.layout = LayoutForSsd(1ull << 30, 65536);
  s.policies.admission = "nhit";
  s.policies.replacement = "sieve";
  s.policies.sequential.enabled = false;
  s.policies.sequential.streams = 128;
  s.policies.sequential.read_cutoff_bytes = 8 << 20;
  s.policies.sequential.write_cutoff_bytes = 1 << 20;
  s.committed_round = 11;
  s.intent_round = 12;
  s.intent_pages = {3, 48};
  s.journal_start_round = 9;
  s.shard_stripe_lines = 1;  // what create stores for 64 KiB lines
  return s;
}

TEST(SuperblockTest, FieldsSitAtTheirDocumentedOffsets) {
  std::vector<std::byte> c(kBlockSize);
  EncodeSuperblock(SampleSuperblock(), c);
  EXPECT_EQ(std::memcmp(c.data(), "TIERCACH", 8), 0);
  EXPECT_EQ(GetU64(c, sb::kChecksum), Checksum(std::span(c).subspan(16)));
  EXPECT_EQ(GetU32(c, sb::kVersion), 7u);
  EXPECT_EQ(GetU64(c, sb::kSequence), 7u);
  EXPECT_EQ(GetU8(c, sb::kUuid), 1u);
  EXPECT_EQ(GetU8(c, sb::kUuid + 15), 16u);
  EXPECT_EQ(GetU32(c, sb::kLineSize), 65536u);
  EXPECT_EQ(GetU8(c, sb::kMode), 1u);
  EXPECT_EQ(GetU8(c, sb::kCleanShutdown), 1u);
  EXPECT_EQ(GetU32(c, sb::kRecordSize), 12u);
  EXPECT_EQ(GetU32(c, sb::kRecordsPerPage), 336u);
  EXPECT_EQ(GetU64(c, sb::kMetadataOffset), 8192u);
  EXPECT_EQ(GetU64(c, sb::kMetadataLength), 49u * 8192);
  EXPECT_EQ(GetU64(c, sb::kPageCount), 49u);
  EXPECT_EQ(GetU64(c, sb::kDataOffset), 524288u);
  EXPECT_EQ(GetU64(c, sb::kLineCount), 16376u);
  EXPECT_EQ(GetU64(c, sb::kCoreSize), 4ull << 40);
  EXPECT_EQ(GetU64(c, sb::kCoreFingerprint), 0xFEEDFACECAFEBEEFull);
  EXPECT_EQ(GetU32(c, sb::kCorePathLength), 23u);
  EXPECT_EQ(GetU32(c, 124), 1u);  // shard stripe lines
  EXPECT_EQ(std::memcmp(c.data() + sb::kCorePath, "/dev/disk/by-id/ata-HDD", 23), 0);
  EXPECT_TRUE(IsAllZero(std::span(c).subspan(sb::kCorePath + 23, sb::kAdmission - 23 - sb::kCorePath)));
  EXPECT_EQ(std::memcmp(c.data() + sb::kAdmission, "nhit\0", 5), 0);
  EXPECT_EQ(std::memcmp(c.data() + sb::kReplacement, "sieve\0", 6), 0);
  EXPECT_EQ(GetU8(c, sb::kSeqEnabled), 0u);
  EXPECT_EQ(GetU32(c, sb::kSeqStreams), 128u);
  EXPECT_EQ(GetU64(c, sb::kSeqReadCutoff), 8u << 20);
  EXPECT_EQ(GetU64(c, sb::kSeqWriteCutoff), 1u << 20);
  EXPECT_EQ(GetU64(c, 1208), 11u);  // committed round
  EXPECT_EQ(GetU64(c, 1216), 12u);  // intent round
  EXPECT_EQ(GetU32(c, 1224), 2u);   // intent page count
  EXPECT_EQ(GetU64(c, 1232), 3u);
  EXPECT_EQ(GetU64(c, 1240), 48u);
  EXPECT_TRUE(IsAllZero(std::span(c).subspan(1248, 3280 - 1248)));
  EXPECT_EQ(GetU64(c, 3280), 9u);  // journal start round
  EXPECT_EQ(sb::kEnd, 3288u);
  EXPECT_TRUE(IsAllZero(std::span(c).subspan(3288)));
}

TEST(SuperblockTest, PolicyNamesMustBePrintableAndPresent) {
  std::vector<std::byte> c(kBlockSize);
  EncodeSuperblock(SampleSuperblock(), c);
  ASSERT_EQ(DecodeSuperblock(c).state, SuperblockState::kValid);
  EXPECT_EQ(DecodeSuperblock(c).sb.policies, SampleSuperblock().policies);
  PutU8(c, sb::kAdmission, 0);  // empty name
  PutU64(c, sb::kChecksum, Checksum(std::span(c).subspan(16)));
  EXPECT_EQ(DecodeSuperblock(c).state, SuperblockState::kBadFields);
  EncodeSuperblock(SampleSuperblock(), c);
  PutU8(c, sb::kReplacement + 1, 0x07);  // not printable
  PutU64(c, sb::kChecksum, Checksum(std::span(c).subspan(16)));
  EXPECT_EQ(DecodeSuperblock(c).state, SuperblockState::kBadFields);
  EncodeSuperblock(SampleSuperblock(), c);
  PutU8(c, sb::kSeqEnabled, 2);
  PutU64(c, sb::kChecksum, Checksum(std::span(c).subspan(16)));
  EXPECT_EQ(DecodeSuperblock(c).state, SuperblockState::kBadFields);
}

TEST(SuperblockTest, DecodeRoundTripsAndClassifies) {
  std::vector<std::byte> c(kBlockSize);
  EncodeSuperblock(SampleSuperblock(), c);
  DecodedSuperblock d = DecodeSuperblock(c);
  ASSERT_EQ(d.state, SuperblockState::kValid);
  EXPECT_EQ(d.sb, SampleSuperblock());

  c[3000] ^= std::byte{1};
  EXPECT_EQ(DecodeSuperblock(c).state, SuperblockState::kBadChecksum);
  std::vector<std::byte> zero(kBlockSize);
  EXPECT_EQ(DecodeSuperblock(zero).state, SuperblockState::kZero);
  zero[100] = std::byte{1};
  EXPECT_EQ(DecodeSuperblock(zero).state, SuperblockState::kForeign);

  // A checksummed copy whose layout fields disagree with its line size and count.
  EncodeSuperblock(SampleSuperblock(), c);
  PutU64(c, sb::kDataOffset, 65536);
  PutU64(c, sb::kChecksum, Checksum(std::span(c).subspan(16)));
  EXPECT_EQ(DecodeSuperblock(c).state, SuperblockState::kBadFields);
}

// Before version 7 the shard stripe's bytes were reserved (written as 0): a copy of version 5 or
// 6 reads as contiguous shards (0), and one with a stripe there was crafted or relabelled (QA,
// 2026-12-07: a version 7 copy relabelled 6 served wrong data). Since version 7 the stripe is 0
// (a converted cache) or what create stores for the line size.
TEST(SuperblockTest, ShardStripeIsCheckedInEveryVersion) {
  std::vector<std::byte> c(kBlockSize);
  for (uint32_t version : {5u, 6u, 7u}) {
    for (uint32_t stripe : {0u, 16u, 1u, 32u, 0xffffffffu}) {
      Superblock s = SampleSuperblock();  // 64 KiB lines: create stores 1
      s.version = version;
      s.shard_stripe_lines = stripe;
      EncodeSuperblock(s, c);
      DecodedSuperblock d = DecodeSuperblock(c);
      const bool valid = stripe == 0 || (version >= 7 && stripe == 1);
      EXPECT_EQ(d.state, valid ? SuperblockState::kValid : SuperblockState::kBadFields)
          << version << " " << stripe;
      if (valid) EXPECT_EQ(d.sb.shard_stripe_lines, stripe);
    }
  }
  EXPECT_EQ(ShardStripeLinesFor(4096), 16u);
  EXPECT_EQ(ShardStripeLinesFor(65536), 1u);
  EXPECT_EQ(ShardStripeLinesFor(1u << 20), 1u);
}

// A copy of a newer version names the way out: the newer tiercache that made it.
TEST(SuperblockTest, ANewerVersionIsRefusedNamingTheWayOut) {
  std::vector<std::byte> area(kSuperblockAreaSize);
  Superblock newer = SampleSuperblock();
  newer.version = kVersion + 1;
  EncodeSuperblock(SampleSuperblock(), std::span(area).subspan(0, kBlockSize));
  EncodeSuperblock(newer, std::span(area).subspan(kBlockSize, kBlockSize));
  auto loaded = LoadSuperblock(area, "ssd");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), Status::Code::kNotSupported);
  EXPECT_EQ(loaded.status().message(),
            "ssd: tiercache format version " + std::to_string(kVersion + 1) +
                " is not supported (this build reads versions 5 to " + std::to_string(kVersion) +
                "): it was made by a newer tiercache; run it with that version (or later)");
}

TEST(SuperblockTest, LoadTakesTheNewestValidCopy) {
  std::vector<std::byte> area(kSuperblockAreaSize);
  Superblock older = SampleSuperblock();
  Superblock newer = older;
  newer.sequence = 8;
  newer.clean_shutdown = false;
  EncodeSuperblock(older, std::span(area).subspan(0, kBlockSize));
  EncodeSuperblock(newer, std::span(area).subspan(kBlockSize, kBlockSize));
  auto loaded = LoadSuperblock(area, "ssd");
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->copy, 1u);
  EXPECT_EQ(loaded->sb, newer);
  area[kBlockSize + 500] ^= std::byte{0x80};  // torn newer copy
  loaded = LoadSuperblock(area, "ssd");
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->copy, 0u);
  EXPECT_EQ(loaded->sb, older);
}

TEST(RecordTest, EncodesBitsLittleEndianAndRoundTrips) {
  Layout l = LayoutFor(65536, 100);  // 16 sectors: two bytes per bitmap
  LineRecord r;
  r.core_line = 0x0A0B0C0D;
  r.valid.set(0);
  r.valid.set(9);
  r.valid.set(15);
  r.dirty.set(9);
  std::array<std::byte, 12> out{};
  EncodeRecord(l, r, out);
  const uint8_t expect[12] = {0x0D, 0x0C, 0x0B, 0x0A, 0, 0, 0, 0, 0x01, 0x82, 0x00, 0x02};
  for (size_t i = 0; i < 12; ++i) EXPECT_EQ(std::to_integer<uint8_t>(out[i]), expect[i]) << i;
  auto back = DecodeRecord(l, out, 1ull << 40);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, r);
}

TEST(RecordTest, DecodeRejectsImpossibleRecords) {
  Layout l = LayoutFor(16384, 100);  // 4 sectors in one byte per bitmap
  std::array<std::byte, 10> in{};
  PutU64(in, 0, 5);
  in[8] = std::byte{0x10};  // sector 4 does not exist
  EXPECT_EQ(DecodeRecord(l, in, 100).status().message(), "sector bit beyond the line");
  in[8] = std::byte{0x01};
  in[9] = std::byte{0x02};
  EXPECT_EQ(DecodeRecord(l, in, 100).status().message(), "dirty sector that is not valid");
  in[9] = std::byte{0x01};
  EXPECT_EQ(DecodeRecord(l, in, 5).status().message(), "core line 5 beyond the core (5 lines)");
  EXPECT_TRUE(DecodeRecord(l, in, 6).ok());
  PutU64(in, 0, LineRecord::kNoCoreLine);
  EXPECT_EQ(DecodeRecord(l, in, 6).status().message(), "free line with valid sectors");
}

TEST(SuperblockTest, CraftedSizesThatWouldOverflowAreRejected) {
  EXPECT_TRUE(FitsIn64Bits(4096, 1ull << 40));
  EXPECT_TRUE(FitsIn64Bits(1u << 20, 1ull << 40));
  EXPECT_FALSE(FitsIn64Bits(1u << 20, 1ull << 44));  // line_count * line_size = 2^64
  EXPECT_FALSE(FitsIn64Bits(4096, 1ull << 51));      // line_count * 8192 = 2^64
  EXPECT_FALSE(FitsIn64Bits(4096, ~0ull));
  EXPECT_FALSE(FitsIn64Bits(0, 16));
  std::vector<std::byte> c(kBlockSize);
  EncodeSuperblock(SampleSuperblock(), c);
  PutU32(c, sb::kLineSize, 1u << 20);
  PutU64(c, sb::kLineCount, 1ull << 47);  // 2^67 bytes of data: wraps in 64 bits
  PutU64(c, sb::kChecksum, Checksum(std::span(c).subspan(16)));
  EXPECT_EQ(DecodeSuperblock(c).state, SuperblockState::kBadFields);
}

TEST(SuperblockTest, RoundFieldsMustBeConsistent) {
  std::vector<std::byte> c(kBlockSize);
  auto bad = [&](auto&& edit) {
    EncodeSuperblock(SampleSuperblock(), c);
    edit();
    PutU64(c, sb::kChecksum, Checksum(std::span(c).subspan(16)));
    return DecodeSuperblock(c).state == SuperblockState::kBadFields;
  };
  EXPECT_FALSE(bad([] {}));
  EXPECT_TRUE(bad([&] { PutU64(c, sb::kIntentRound, 10); }));   // intent < committed
  EXPECT_TRUE(bad([&] { PutU32(c, sb::kIntentCount, 257); }));  // more than fit
  EXPECT_TRUE(bad([&] { PutU64(c, sb::kIntentPages + 8, 49); }));  // page past the end
  EXPECT_TRUE(bad([&] { PutU64(c, sb::kIntentPages + 8, 3); }));   // not ascending
}

TEST(SuperblockTest, AWholeCopyWithBadFieldsIsCorruptionNotAFallback) {
  std::vector<std::byte> area(kSuperblockAreaSize);
  Superblock s = SampleSuperblock();
  EncodeSuperblock(s, std::span(area).subspan(0, kBlockSize));
  s.sequence = 8;
  EncodeSuperblock(s, std::span(area).subspan(kBlockSize, kBlockSize));
  auto copy1 = std::span(area).subspan(kBlockSize, kBlockSize);
  PutU8(copy1, sb::kMode, 9);
  PutU64(copy1, sb::kChecksum, Checksum(copy1.subspan(16)));
  auto loaded = LoadSuperblock(area, "ssd");
  EXPECT_EQ(loaded.status().code(), Status::Code::kCorruption);
  EXPECT_EQ(loaded.status().message(),
            "tiercache superblock copy 1 on ssd has a valid checksum but inconsistent fields "
            "(sizes, rounds or names out of range); refusing to fall back to the other copy");
}

class SlotTest : public ::testing::Test {
 protected:
  SlotTest() : records_(100 * l_.record_size, std::byte{0xFF}), page_(kPageStride) {
    h_.uuid[0] = 9;
  }
  std::span<std::byte> slot(uint32_t i) { return std::span(page_).subspan(i * kBlockSize, kBlockSize); }
  void write(uint32_t i, uint64_t round) {
    SlotHeader h = h_;
    h.sequence = round;
    BuildSlot(h, records_, slot(i));
  }
  Result<SlotChoice> choose(uint64_t committed, uint64_t intent, bool may_be_torn) {
    return ChooseSlot(page_, h_, {committed, intent, may_be_torn});
  }

  Layout l_ = LayoutFor(65536, 100);
  SlotHeader h_{3, 0, {}, 100};
  std::vector<std::byte> records_;
  std::vector<std::byte> page_;
};

TEST_F(SlotTest, TakesTheNewestCommittedSlot) {
  auto choice = choose(0, 0, false);  // never written
  ASSERT_TRUE(choice.ok());
  EXPECT_TRUE(choice->never_written);
  EXPECT_EQ(choice->slot, 0u);
  write(1, 1);
  choice = choose(1, 1, false);
  ASSERT_TRUE(choice.ok());
  EXPECT_EQ(choice->slot, 1u);
  EXPECT_EQ(choice->sequence, 1u);
  EXPECT_FALSE(choice->rewrite);
  write(0, 5);
  choice = choose(7, 7, false);
  ASSERT_TRUE(choice.ok());
  EXPECT_EQ(choice->slot, 0u);
  EXPECT_EQ(choice->sequence, 5u);
  EXPECT_TRUE(HasSlotOfRound(page_, h_, 5));
  EXPECT_FALSE(HasSlotOfRound(page_, h_, 7));
}

TEST_F(SlotTest, ATornSlotOfTheUncommittedRoundFallsBack) {
  write(0, 4);
  write(1, 5);
  slot(1)[kBlockSize - 1] ^= std::byte{1};
  auto choice = choose(4, 5, true);
  ASSERT_TRUE(choice.ok());
  EXPECT_EQ(choice->slot, 0u);
  EXPECT_EQ(choice->sequence, 4u);
  EXPECT_TRUE(choice->rewrite);
  // The same damage where no uncommitted round wrote the page: committed metadata is damaged.
  EXPECT_EQ(choose(5, 5, false).status().message(),
            "metadata page 3 slot B fails its checksum, and no uncommitted round wrote it: "
            "committed metadata is damaged");
  EXPECT_EQ(choose(4, 5, false).status().code(), Status::Code::kCorruption);
}

TEST_F(SlotTest, AWholeSlotOfTheUncommittedRoundIsIgnored) {
  write(0, 4);
  write(1, 5);
  auto choice = choose(4, 5, true);
  ASSERT_TRUE(choice.ok());
  EXPECT_EQ(choice->slot, 0u);
  EXPECT_TRUE(choice->rewrite);
  EXPECT_EQ(choose(4, 5, false).status().message(),
            "metadata page 3 slot B holds round 5, which never committed, but the page was not "
            "in that round");
  EXPECT_EQ(choose(4, 4, false).status().message(),
            "metadata page 3 slot B was written in round 5, after the last round the superblock "
            "knows (4): the superblock is stale");
}

TEST_F(SlotTest, AFirstWriteTornLeavesThePageNeverWritten) {
  write(1, 2);
  slot(1)[100] ^= std::byte{1};
  auto choice = choose(1, 2, true);
  ASSERT_TRUE(choice.ok());
  EXPECT_TRUE(choice->never_written);
  EXPECT_EQ(choice->slot, 0u);  // the next write goes to the torn slot B
  EXPECT_TRUE(choice->rewrite);
}

TEST_F(SlotTest, WrongHeadersAndDoubleDamageAreCorruption) {
  write(0, 1);
  write(1, 2);
  SlotHeader other_page = h_;
  other_page.page_index = 4;  // a slot found at the wrong place is not valid there
  EXPECT_EQ(ChooseSlot(page_, other_page, {2, 2, false}).status().message(),
            "metadata page 4 slot A has a valid checksum but a wrong header (page index, cache "
            "uuid, record count or round)");
  SlotHeader other_cache = h_;
  other_cache.uuid[0] = 8;  // nor is a slot of another cache
  EXPECT_EQ(ChooseSlot(page_, other_cache, {2, 2, true}).status().code(),
            Status::Code::kCorruption);
  slot(0)[100] ^= std::byte{1};
  slot(1)[100] ^= std::byte{1};
  EXPECT_EQ(choose(1, 2, true).status().message(),
            "metadata page 3: no slot holds a committed copy (both torn or damaged)");
}

}  // namespace
}  // namespace tiercache
