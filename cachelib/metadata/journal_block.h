// Record journal blocks: what one persist round appends instead of rewriting whole metadata
// pages (docs/on-disk-format.md "Record journal"). Builds a block (header, entries of line +
// record, checksum) and checks one read back. Plain functions; thread-compatible.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "cachelib/common/status.h"
#include "cachelib/metadata/format.h"
#include "cachelib/metadata/line_record.h"

namespace tiercache {

struct JournalHeader {
  uint64_t round = 0;  // the persist round (>= 1)
  std::array<uint8_t, 16> uuid{};
  uint32_t block_in_round = 0;   // 0-based
  uint32_t blocks_in_round = 0;  // >= 1
  // <= layout.journal_entries_per_block; 0 only in a marker (a page round's one-block round)
  uint32_t entry_count = 0;
};

// Writes entry `index` (line, then its record) into the 4096-byte `block`.
void PutJournalEntry(const format::Layout& layout, std::span<std::byte> block, uint32_t index,
                     uint64_t line, const LineRecord& record);
// Writes the header and the checksum of a block whose entries are in place and whose bytes past
// the last entry are zero.
void SealJournalBlock(const JournalHeader& header, std::span<std::byte> block);

enum class JournalBlockState {
  kZero,         // never written
  kDamaged,      // not a journal magic, or a bad checksum: a torn write, or damage
  kWrongHeader,  // checksum fine (a whole write) but another cache's uuid or counts out of range
  kValid,
};
// Checks a block; on kValid, *header is its header.
JournalBlockState CheckJournalBlock(const format::Layout& layout, std::span<const std::byte> block,
                                    const std::array<uint8_t, 16>& uuid, JournalHeader* header);

struct JournalEntry {
  uint64_t line = 0;
  LineRecord record;
};
// Entry `index` of a valid block, checked like a page record (line < line_count, record bits,
// core_line < core_lines). Corruption (short reason) otherwise.
Result<JournalEntry> DecodeJournalEntry(const format::Layout& layout,
                                        std::span<const std::byte> block, uint32_t index,
                                        uint64_t core_lines);

}  // namespace tiercache
