// libFuzzer target over the decoders of everything tiercache reads back from the SSD: the
// superblock copies (LoadSuperblock, DecodeSuperblock), a metadata page (ChooseSlot under fuzzed
// round rules, HasSlotOfRound, ScanPage) and its line records (DecodeRecord), and the page's two
// halves read as record-journal blocks (CheckJournalBlock, DecodeJournalEntry). Input: one flag
// byte, the 8 KiB superblock area, one 8 KiB page (short inputs are zero padded). Flags ask the harness to fix the
// checksums, so the fuzzer also gets past them. Build: TIERCACHE_FUZZ=ON with clang.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

#include "cachelib/metadata/format.h"
#include "cachelib/metadata/journal_block.h"
#include "cachelib/metadata/metadata_page.h"
#include "cachelib/metadata/metadata_scan.h"
#include "cachelib/metadata/superblock.h"

namespace {

using namespace tiercache;
using namespace tiercache::format;

constexpr uint8_t kFixSuperblockChecksums = 1;
constexpr uint8_t kFixSlotChecksums = 2;
constexpr uint8_t kMayBeTorn = 4;

void FixChecksum(std::span<std::byte> block) {
  PutU64(block, 8, Checksum(block.subspan(16)));
}

// A decoded copy must survive an encode/decode round trip unchanged.
void CheckRoundTrip(const DecodedSuperblock& d) {
  if (d.state != SuperblockState::kValid) return;
  std::vector<std::byte> again(kBlockSize);
  EncodeSuperblock(d.sb, again);
  DecodedSuperblock d2 = DecodeSuperblock(again);
  if (d2.state != SuperblockState::kValid || !(d2.sb == d.sb)) std::abort();
}

// The layout the page is read with: the superblock's if one loads, else one picked by the input.
Layout PageLayout(const Result<LoadedSuperblock>& loaded, uint8_t flags, uint64_t* core_lines) {
  if (loaded.ok()) {
    const Superblock& sb = loaded->sb;
    *core_lines = sb.core.size / sb.layout.line_size + (sb.core.size % sb.layout.line_size != 0);
    return sb.layout;
  }
  *core_lines = 1u << 20;
  return LayoutFor(kMinLineSize << (flags >> 5), 1000);  // 4 KiB .. 512 KiB lines
}

void FuzzPage(std::span<std::byte> page, const Result<LoadedSuperblock>& loaded, uint8_t flags) {
  uint64_t core_lines = 0;
  const Layout l = PageLayout(loaded, flags, &core_lines);
  if (flags & kFixSlotChecksums) {
    FixChecksum(page.subspan(0, kBlockSize));
    FixChecksum(page.subspan(kBlockSize, kBlockSize));
  }
  // Expect the page slot A names (bounded), so the header checks pass as often as they fail.
  uint64_t index = GetU64(page, slot::kPageIndex);
  if (l.page_count == 0) return;
  SlotHeader expected{index % l.page_count, 0, {}, l.records_in_page(index % l.page_count)};
  std::memcpy(expected.uuid.data(), page.data() + slot::kUuid, expected.uuid.size());
  RoundRule rule;
  if (loaded.ok()) {
    rule = {loaded->sb.committed_round, loaded->sb.intent_round, (flags & kMayBeTorn) != 0};
  } else {
    rule = {GetU64(page, kBlockSize - 16), GetU64(page, kBlockSize - 8), (flags & kMayBeTorn) != 0};
  }
  Result<SlotChoice> choice = ChooseSlot(page, expected, rule);
  (void)HasSlotOfRound(page, expected, rule.intent);
  if (choice.ok() && choice->slot >= kSlotsPerPage) std::abort();
  if (loaded.ok()) {  // what tiercache check says about the page
    std::optional<PageFinding> f = ScanPage(loaded->sb, expected.page_index, page, rule, core_lines);
    if (f) (void)f->describe(l.line_size);
  }
  // Every record position of both slots, whether or not the slot was chosen.
  for (uint32_t s = 0; s < kSlotsPerPage; ++s) {
    auto records = page.subspan(s * kBlockSize + slot::kHeaderSize, kBlockSize - slot::kHeaderSize);
    for (size_t at = 0; at + l.record_size <= records.size(); at += l.record_size) {
      Result<LineRecord> r = DecodeRecord(l, records.subspan(at, l.record_size), core_lines);
      if (r.ok() && r->in_use() && r->core_line >= core_lines) std::abort();
      if (r.ok() && (r->dirty & ~r->valid).any()) std::abort();
    }
  }
}

// Each half of the page as a journal block: a valid one decodes entry by entry without a crash,
// and every entry it accepts is in range.
void FuzzJournal(std::span<std::byte> page, const Result<LoadedSuperblock>& loaded, uint8_t flags) {
  uint64_t core_lines = 0;
  const Layout l = PageLayout(loaded, flags, &core_lines);
  for (uint32_t s = 0; s < kSlotsPerPage; ++s) {
    auto block = page.subspan(s * kBlockSize, kBlockSize);
    if (flags & kFixSlotChecksums) FixChecksum(block);
    std::array<uint8_t, 16> uuid{};
    std::memcpy(uuid.data(), block.data() + journal::kUuid, uuid.size());  // pass the uuid check
    JournalHeader h;
    if (CheckJournalBlock(l, block, uuid, &h) != JournalBlockState::kValid) continue;
    if (h.entry_count > l.journal_entries_per_block || h.block_in_round >= h.blocks_in_round) {
      std::abort();
    }
    for (uint32_t i = 0; i < h.entry_count; ++i) {
      Result<JournalEntry> e = DecodeJournalEntry(l, block, i, core_lines);
      if (e.ok() && e->line >= l.line_count) std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t flags = data[0];
  std::vector<std::byte> in(kSuperblockAreaSize + kPageStride);
  std::memcpy(in.data(), data + 1, std::min(size - 1, in.size()));
  auto area = std::span(in).first(kSuperblockAreaSize);
  if (flags & kFixSuperblockChecksums) {
    FixChecksum(area.subspan(0, kBlockSize));
    FixChecksum(area.subspan(kBlockSize, kBlockSize));
  }
  for (uint32_t i = 0; i < kSuperblockCopies; ++i) {
    CheckRoundTrip(DecodeSuperblock(area.subspan(kSuperblockOffset[i], kBlockSize)));
  }
  (void)HasTiercacheMagic(area);
  Result<LoadedSuperblock> loaded = LoadSuperblock(area, "fuzz");
  if (loaded.ok() && loaded->sb.layout.required_size() < loaded->sb.layout.data_offset) std::abort();
  FuzzPage(std::span(in).subspan(kSuperblockAreaSize), loaded, flags);
  FuzzJournal(std::span(in).subspan(kSuperblockAreaSize), loaded, flags);
  return 0;
}
