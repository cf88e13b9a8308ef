// The tiercache on-SSD format, shared by the superblock, metadata-page and store code: constants,
// byte offsets of every field, the layout derived from (line size, line count), little-endian
// helpers and the checksum. Mirrored in docs/on-disk-format.md: change both together, and never
// move a field of a released version. Plain functions and values; thread-compatible.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace tiercache::format {

// ---- Regions ------------------------------------------------------------------------------------
inline constexpr std::string_view kSuperblockMagic = "TIERCACH";  // 8 bytes, no NUL
// 2: policies in the superblock; 3: persist rounds; 4: clean records are trusted after a crash
// (a v3 record may claim a clean copy older than an unflushed core write); 5: the record journal
// between the metadata and data regions; 6: the journal is a ring, page rounds of an ongoing
// epoch leave an entry-less marker block (a version 5 cache reads as version 6: it has neither);
// 7: the engine's shards own lines in stripes (shard_stripe_lines; 0, as in versions 5 and 6, keeps
// one contiguous range per shard).
inline constexpr uint32_t kVersion = 7;
inline constexpr uint32_t kOldestReadableVersion = 5;
inline constexpr uint64_t kBlockSize = 4096;  // unit of every metadata write
inline constexpr uint64_t kSuperblockCopies = 2;
inline constexpr uint64_t kSuperblockOffset[kSuperblockCopies] = {0, 4096};
inline constexpr uint64_t kSuperblockAreaSize = 8192;  // both copies
inline constexpr uint64_t kMetadataOffset = 8192;
inline constexpr uint64_t kSlotsPerPage = 2;  // A at +0, B at +4096
inline constexpr uint64_t kPageStride = kSlotsPerPage * kBlockSize;
inline constexpr uint64_t kMinLines = 16;
inline constexpr size_t kMaxCorePathBytes = 1024;
inline constexpr uint32_t kMinLineSize = 4096;
inline constexpr uint32_t kMaxLineSize = 1u << 20;
// Bytes per stripe of lines a new cache deals to the engine's shards in turn (version 7).
inline constexpr uint32_t kShardStripeBytes = 64 * 1024;
// The superblock's shard_stripe_lines of a cache created with `line_size`.
constexpr uint32_t ShardStripeLinesFor(uint32_t line_size) {
  return line_size >= kShardStripeBytes ? 1 : kShardStripeBytes / line_size;
}

// ---- Superblock copy (4096 bytes). Checksum = XXH64(seed 0) of bytes [16, 4096). --------------
// kMagic, kChecksum, kVersion and kSequence keep their offsets in every version; the rest is v1.
namespace sb {
inline constexpr size_t kMagic = 0;                            // char[8] "TIERCACH"
inline constexpr size_t kChecksum = 8;                         // u64
inline constexpr size_t kVersion = 16;                         // u32
inline constexpr size_t kReserved0 = 20;                       // u32, zero
inline constexpr size_t kSequence = 24;                        // u64, newest valid copy wins
inline constexpr size_t kUuid = 32;                            // u8[16]
inline constexpr size_t kLineSize = 48;                        // u32, bytes
inline constexpr size_t kMode = 52;                            // u8, CacheMode
inline constexpr size_t kCleanShutdown = 53;                   // u8, 0 or 1
inline constexpr size_t kReserved1 = 54;                       // u8[2], zero
inline constexpr size_t kRecordSize = 56;                      // u32, bytes
inline constexpr size_t kRecordsPerPage = 60;                  // u32
inline constexpr size_t kMetadataOffset = 64;                  // u64, bytes
inline constexpr size_t kMetadataLength = 72;                  // u64, bytes
inline constexpr size_t kPageCount = 80;                       // u64
inline constexpr size_t kDataOffset = 88;                      // u64, bytes
inline constexpr size_t kLineCount = 96;                       // u64
inline constexpr size_t kCoreSize = 104;                       // u64, bytes
inline constexpr size_t kCoreFingerprint = 112;                // u64
inline constexpr size_t kCorePathLength = 120;                 // u32, bytes, <= 1024
inline constexpr size_t kShardStripeLines = 124;               // u32 (version 7; before: zero)
inline constexpr size_t kCorePath = 128;                       // char[1024], zero padded
// Version 2: the policies the cache runs with (tiercache create --admission/--replacement/...).
inline constexpr size_t kAdmission = 1152;                     // char[16], zero padded
inline constexpr size_t kReplacement = 1168;                   // char[16], zero padded
inline constexpr size_t kSeqEnabled = 1184;                    // u8, 0 or 1
inline constexpr size_t kReserved3 = 1185;                     // u8[3], zero
inline constexpr size_t kSeqStreams = 1188;                    // u32
inline constexpr size_t kSeqReadCutoff = 1192;                 // u64, bytes
inline constexpr size_t kSeqWriteCutoff = 1200;                // u64, bytes
// Version 3: persist rounds (docs/on-disk-format.md "Persist rounds").
inline constexpr size_t kCommittedRound = 1208;                // u64, last round fully written
inline constexpr size_t kIntentRound = 1216;                   // u64, last round started, >= C
inline constexpr size_t kIntentCount = 1224;                   // u32, pages in that round
inline constexpr size_t kReserved4 = 1228;                     // u32, zero
inline constexpr size_t kIntentPages = 1232;                   // u64[kMaxRoundPages], ascending
inline constexpr size_t kMaxRoundPages = 256;                  // pages written per round, at most
// Version 5: the record journal (docs/on-disk-format.md "Record journal").
inline constexpr size_t kJournalStartRound = kIntentPages + 8 * kMaxRoundPages;  // u64
inline constexpr size_t kEnd = kJournalStartRound + 8;  // rest of the copy is zero
inline constexpr size_t kPolicyNameBytes = 16;
}  // namespace sb

// ---- Metadata page slot (4096 bytes). Checksum = XXH64(seed 0) of bytes [16, 4096). -----------
namespace slot {
inline constexpr std::string_view kMagic = "TCMETAPG";  // 8 bytes
inline constexpr size_t kMagicOffset = 0;               // char[8]
inline constexpr size_t kChecksum = 8;                  // u64
inline constexpr size_t kPageIndex = 16;                // u64
inline constexpr size_t kSequence = 24;                 // u64, > 0: the persist round (v3)
inline constexpr size_t kUuid = 32;                     // u8[16], the cache's UUID
inline constexpr size_t kRecordCount = 48;              // u32, records in this page
inline constexpr size_t kReserved = 52;                 // u8[12], zero
inline constexpr size_t kHeaderSize = 64;               // records follow, packed
}  // namespace slot

// ---- Journal block (4096 bytes). Checksum = XXH64(seed 0) of bytes [16, 4096). --------------
// Entries: line u64, then the line's record (record_size bytes), packed.
namespace journal {
inline constexpr std::string_view kMagic = "TCJOURNL";  // 8 bytes
inline constexpr size_t kMagicOffset = 0;               // char[8]
inline constexpr size_t kChecksum = 8;                  // u64
inline constexpr size_t kRound = 16;                    // u64, the persist round (>= 1)
inline constexpr size_t kUuid = 24;                     // u8[16], the cache's UUID
inline constexpr size_t kBlockInRound = 40;             // u32, 0-based
inline constexpr size_t kBlocksInRound = 44;            // u32, >= 1
inline constexpr size_t kEntryCount = 48;               // u32, entries in this block
inline constexpr size_t kReserved = 52;                 // u8[12], zero
inline constexpr size_t kHeaderSize = 64;               // entries follow, packed
inline constexpr uint64_t kMinBlocks = 16;
inline constexpr uint64_t kMaxBlocks = 16384;           // 64 MiB
// Journal blocks for a metadata region of `page_count` pages: a quarter of it, within bounds.
uint64_t BlocksFor(uint64_t page_count);
}  // namespace journal

// ---- Line record (record_size bytes): core_line u64, valid bits, dirty bits. -------------------
// Bitmaps are ceil(sectors_per_line / 8) bytes; sector i is bit (i % 8) of byte i / 8.
// A free record has core_line = ~0 and no bits set.

// Where everything is, derived from (line_size, line_count) alone.
struct Layout {
  uint32_t line_size = 0;
  uint32_t sectors_per_line = 0;
  uint32_t bitmap_bytes = 0;      // per bitmap
  uint32_t record_size = 0;       // 8 + 2 * bitmap_bytes
  uint32_t records_per_page = 0;  // (4096 - 64) / record_size
  uint64_t line_count = 0;
  uint64_t page_count = 0;       // ceil(line_count / records_per_page)
  uint64_t metadata_offset = 0;  // kMetadataOffset
  uint64_t metadata_length = 0;  // page_count * kPageStride
  uint64_t journal_offset = 0;   // metadata end (version 5)
  uint64_t journal_blocks = 0;   // journal::BlocksFor(page_count)
  uint32_t journal_entries_per_block = 0;  // (4096 - 64) / (8 + record_size)
  uint64_t data_offset = 0;      // journal end, rounded up to line_size

  // Bytes of SSD the layout occupies: data_offset + line_count * line_size.
  uint64_t required_size() const;
  // Byte offset of a page slot (0 = A, 1 = B).
  uint64_t slot_offset(uint64_t page, uint32_t slot) const;
  // Byte offset of journal block `i`.
  uint64_t journal_block_offset(uint64_t i) const;
  // Records stored in `page` (the last page may be partial).
  uint32_t records_in_page(uint64_t page) const;
  bool operator==(const Layout&) const = default;
};

// REQUIRES: line_size is a valid line size (FormatOptions::validate) and the layout fits in
// 64 bits (FitsIn64Bits).
Layout LayoutFor(uint32_t line_size, uint64_t line_count);
// True when every size of LayoutFor(line_size, line_count) (page_count * 8192, data_offset,
// line_count * line_size, required_size) fits in a u64; used on sizes read from the SSD.
bool FitsIn64Bits(uint32_t line_size, uint64_t line_count);
// The layout with the most lines that fits in `ssd_size` bytes (line_count may be 0).
Layout LayoutForSsd(uint64_t ssd_size, uint32_t line_size);

uint64_t Checksum(std::span<const std::byte> bytes);

// Little-endian field access; `at` + width must lie inside `buf`.
void PutU8(std::span<std::byte> buf, size_t at, uint8_t v);
void PutU32(std::span<std::byte> buf, size_t at, uint32_t v);
void PutU64(std::span<std::byte> buf, size_t at, uint64_t v);
uint8_t GetU8(std::span<const std::byte> buf, size_t at);
uint32_t GetU32(std::span<const std::byte> buf, size_t at);
uint64_t GetU64(std::span<const std::byte> buf, size_t at);
void PutBytes(std::span<std::byte> buf, size_t at, std::span<const std::byte> src);
bool IsAllZero(std::span<const std::byte> bytes);
// Bytes after the superblock area that create and `create --force` look through for metadata
// page slots or journal blocks of a cache whose superblock is gone.
inline constexpr uint64_t kMetadataProbeBytes = 1 << 20;
// Whether a 4096-byte block of `blocks` (a multiple of 4096 bytes) starts with the magic of a
// metadata page slot or a journal block.
bool HoldsMetadataBlocks(std::span<const std::byte> blocks);
// What such a device holds, for the refusals.
inline constexpr const char* kOrphanMetadata =
    "tiercache metadata blocks but no tiercache superblock (damaged or wiped): it may hold "
    "dirty data no tool can read any more";

}  // namespace tiercache::format
