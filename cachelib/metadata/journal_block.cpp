#include "cachelib/metadata/journal_block.h"

#include <cassert>
#include <cstring>
#include <string>

#include "cachelib/metadata/metadata_page.h"

namespace tiercache {
namespace {

using namespace format;

size_t EntryOffset(const Layout& layout, uint32_t index) {
  return journal::kHeaderSize + size_t{index} * (8 + layout.record_size);
}

}  // namespace

void PutJournalEntry(const Layout& layout, std::span<std::byte> block, uint32_t index,
                     uint64_t line, const LineRecord& record) {
  assert(block.size() == kBlockSize && index < layout.journal_entries_per_block);
  const size_t at = EntryOffset(layout, index);
  PutU64(block, at, line);
  EncodeRecord(layout, record, block.subspan(at + 8, layout.record_size));
}

void SealJournalBlock(const JournalHeader& h, std::span<std::byte> block) {
  assert(block.size() == kBlockSize && h.block_in_round < h.blocks_in_round);
  std::memset(block.data(), 0, journal::kHeaderSize);
  PutBytes(block, journal::kMagicOffset,
           std::as_bytes(std::span<const char>(journal::kMagic.data(), journal::kMagic.size())));
  PutU64(block, journal::kRound, h.round);
  PutBytes(block, journal::kUuid, std::as_bytes(std::span(h.uuid)));
  PutU32(block, journal::kBlockInRound, h.block_in_round);
  PutU32(block, journal::kBlocksInRound, h.blocks_in_round);
  PutU32(block, journal::kEntryCount, h.entry_count);
  PutU64(block, journal::kChecksum, Checksum(block.subspan(16)));
}

JournalBlockState CheckJournalBlock(const Layout& layout, std::span<const std::byte> b,
                                    const std::array<uint8_t, 16>& uuid, JournalHeader* h) {
  assert(b.size() == kBlockSize);
  if (std::memcmp(b.data(), journal::kMagic.data(), journal::kMagic.size()) != 0) {
    return IsAllZero(b) ? JournalBlockState::kZero : JournalBlockState::kDamaged;
  }
  if (GetU64(b, journal::kChecksum) != Checksum(b.subspan(16))) return JournalBlockState::kDamaged;
  h->round = GetU64(b, journal::kRound);
  std::memcpy(h->uuid.data(), b.data() + journal::kUuid, h->uuid.size());
  h->block_in_round = GetU32(b, journal::kBlockInRound);
  h->blocks_in_round = GetU32(b, journal::kBlocksInRound);
  h->entry_count = GetU32(b, journal::kEntryCount);
  if (h->uuid != uuid || h->round == 0 || h->blocks_in_round == 0 ||
      h->blocks_in_round > layout.journal_blocks || h->block_in_round >= h->blocks_in_round ||
      h->entry_count > layout.journal_entries_per_block ||
      (h->entry_count == 0 && h->blocks_in_round != 1)) {  // a marker is one entry-less block
    return JournalBlockState::kWrongHeader;
  }
  return JournalBlockState::kValid;
}

Result<JournalEntry> DecodeJournalEntry(const Layout& layout, std::span<const std::byte> block,
                                        uint32_t index, uint64_t core_lines) {
  const size_t at = EntryOffset(layout, index);
  JournalEntry e;
  e.line = GetU64(block, at);
  if (e.line >= layout.line_count) {
    return Status::Corruption("line " + std::to_string(e.line) + " beyond the cache (" +
                              std::to_string(layout.line_count) + " lines)");
  }
  Result<LineRecord> record =
      DecodeRecord(layout, block.subspan(at + 8, layout.record_size), core_lines);
  if (!record.ok()) return record.status();
  e.record = *record;
  return e;
}

}  // namespace tiercache
