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
  uint64_t lines, record_size, records_per_page, pages, data_offset;
};

TEST(LayoutTest, LargestLineCountThatFits) {
  // Expected values worked out by hand from the documented formulas.
  const LayoutCase cases[] = {
      {1ull << 30, 65536, 16377, 12, 336, 49, 458752},
      {1ull << 30, 4096, 260846, 10, 403, 648, 5316608},
      {1ull << 30, 1u << 20, 1023, 72, 56, 19, 1048576},
      {1000ull * (1 << 20) + 7 * 512, 8192, 127682, 10, 403, 317, 2605056},
      {64ull << 20, 65536, 1023, 12, 336, 4, 65536},
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
  return s;
}

TEST(SuperblockTest, FieldsSitAtTheirDocumentedOffsets) {
  std::vector<std::byte> c(kBlockSize);
  EncodeSuperblock(SampleSuperblock(), c);
  EXPECT_EQ(std::memcmp(c.data(), "TIERCACH", 8), 0);
  EXPECT_EQ(GetU64(c, sb::kChecksum), Checksum(std::span(c).subspan(16)));
  EXPECT_EQ(GetU32(c, sb::kVersion), 2u);
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
  EXPECT_EQ(GetU64(c, sb::kDataOffset), 458752u);
  EXPECT_EQ(GetU64(c, sb::kLineCount), 16377u);
  EXPECT_EQ(GetU64(c, sb::kCoreSize), 4ull << 40);
  EXPECT_EQ(GetU64(c, sb::kCoreFingerprint), 0xFEEDFACECAFEBEEFull);
  EXPECT_EQ(GetU32(c, sb::kCorePathLength), 23u);
  EXPECT_EQ(std::memcmp(c.data() + sb::kCorePath, "/dev/disk/by-id/ata-HDD", 23), 0);
  EXPECT_TRUE(IsAllZero(std::span(c).subspan(sb::kCorePath + 23, sb::kAdmission - 23 - sb::kCorePath)));
  EXPECT_EQ(std::memcmp(c.data() + sb::kAdmission, "nhit\0", 5), 0);
  EXPECT_EQ(std::memcmp(c.data() + sb::kReplacement, "sieve\0", 6), 0);
  EXPECT_EQ(GetU8(c, sb::kSeqEnabled), 0u);
  EXPECT_EQ(GetU32(c, sb::kSeqStreams), 128u);
  EXPECT_EQ(GetU64(c, sb::kSeqReadCutoff), 8u << 20);
  EXPECT_EQ(GetU64(c, sb::kSeqWriteCutoff), 1u << 20);
  EXPECT_TRUE(IsAllZero(std::span(c).subspan(sb::kEnd)));
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

TEST(SlotTest, ChoosesTheNewerValidSlot) {
  Layout l = LayoutFor(65536, 100);
  SlotHeader h{3, 0, {}, 100};
  h.uuid[0] = 9;
  std::vector<std::byte> records(100 * l.record_size, std::byte{0xFF});
  std::vector<std::byte> page(kPageStride);
  auto a = std::span(page).subspan(0, kBlockSize), b = std::span(page).subspan(kBlockSize);

  auto choice = ChooseSlot(page, h);  // never written
  ASSERT_TRUE(choice.ok());
  EXPECT_TRUE(choice->never_written);
  EXPECT_EQ(choice->slot, 0u);

  h.sequence = 1;
  BuildSlot(h, records, b);
  choice = ChooseSlot(page, h);
  ASSERT_TRUE(choice.ok());
  EXPECT_EQ(choice->slot, 1u);
  EXPECT_EQ(choice->sequence, 1u);

  h.sequence = 2;
  BuildSlot(h, records, a);
  EXPECT_EQ(ChooseSlot(page, h)->slot, 0u);
  a[kBlockSize - 1] ^= std::byte{1};  // torn A: back to B
  EXPECT_EQ(ChooseSlot(page, h)->slot, 1u);

  SlotHeader other_page = h;
  other_page.page_index = 4;  // a slot found at the wrong place is not valid there
  EXPECT_FALSE(ChooseSlot(page, other_page).ok());
  SlotHeader other_cache = h;
  other_cache.uuid[0] = 8;  // nor is a slot of another cache (an earlier format)
  EXPECT_FALSE(ChooseSlot(page, other_cache).ok());

  b[100] ^= std::byte{1};  // both torn
  auto bad = ChooseSlot(page, h);
  EXPECT_EQ(bad.status().code(), Status::Code::kCorruption);
}

}  // namespace
}  // namespace tiercache
