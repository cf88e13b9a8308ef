#include "cachelib/metadata/metadata_scan.h"

#include <algorithm>

namespace tiercache {
namespace {

// Counts the decodable in-use and dirty records of a whole slot.
void CountRecords(const format::Layout& l, std::span<const std::byte> slot, uint32_t count,
                  PageFinding* f) {
  for (uint32_t r = 0; r < count; ++r) {
    Result<LineRecord> rec = DecodeRecord(
        l, slot.subspan(format::slot::kHeaderSize + size_t{r} * l.record_size, l.record_size),
        ~uint64_t{0});
    if (!rec.ok() || !rec->in_use()) continue;
    ++f->fallback_used;
    if (rec->dirty.any()) ++f->fallback_dirty;
    f->fallback_dirty_sectors += rec->dirty.count();
  }
}

// The whole slot with the highest round not past the committed one (what a salvage would load).
void FindFallback(const Superblock& sb, std::span<const std::byte> bytes,
                  const SlotHeader& expected, PageFinding* f) {
  for (uint32_t i = 0; i < format::kSlotsPerPage; ++i) {
    uint64_t round = 0;
    auto slot = bytes.subspan(i * format::kBlockSize, format::kBlockSize);
    SlotState state = CheckSlot(slot, expected, &round);
    f->other_zero |= state == SlotState::kZero;
    if (state != SlotState::kValid || round > sb.committed_round ||
        (f->fallback_readable && round < f->fallback_round)) {
      continue;
    }
    f->fallback_readable = true;
    f->fallback_round = round;
    f->fallback_used = f->fallback_dirty = f->fallback_dirty_sectors = 0;
    CountRecords(sb.layout, slot, expected.record_count, f);
  }
}

}  // namespace

RoundRule RuleForPage(const Superblock& sb, uint64_t page, bool intent_complete) {
  bool in_intent = sb.intent_round > sb.committed_round &&
                   std::binary_search(sb.intent_pages.begin(), sb.intent_pages.end(), page);
  uint64_t committed = in_intent && intent_complete ? sb.intent_round : sb.committed_round;
  return {committed, sb.intent_round, in_intent && !intent_complete};
}

std::optional<PageFinding> ScanPage(const Superblock& sb, uint64_t page,
                                    std::span<const std::byte> bytes, const RoundRule& rule,
                                    uint64_t core_lines) {
  const format::Layout& l = sb.layout;
  SlotHeader expected{page, 0, sb.uuid, l.records_in_page(page)};
  PageFinding f;
  f.page = page;
  f.first_line = page * l.records_per_page;
  f.line_count = expected.record_count;
  Result<SlotChoice> choice = ChooseSlot(bytes, expected, rule);
  if (!choice.ok()) {
    f.problem = choice.status().message();
    FindFallback(sb, bytes, expected, &f);
    return f;
  }
  if (choice->never_written) return std::nullopt;
  auto slot = bytes.subspan(choice->slot * format::kBlockSize, format::kBlockSize);
  for (uint32_t r = 0; r < expected.record_count; ++r) {
    Result<LineRecord> rec = DecodeRecord(
        l, slot.subspan(format::slot::kHeaderSize + size_t{r} * l.record_size, l.record_size),
        core_lines);
    if (rec.ok()) continue;
    f.problem = "metadata page " + std::to_string(page) + " record " + std::to_string(r) + ": " +
                rec.status().message();
    return f;
  }
  return std::nullopt;
}

std::string PageFinding::describe(uint32_t line_size) const {
  std::string lines = "lines " + std::to_string(first_line) + "-" +
                      std::to_string(first_line + line_count - 1);
  std::string out = problem + " (" + lines + ").";
  if (!fallback_readable && other_zero) {
    return out + " Its other slot is all zero (the page had no earlier write): a salvage would "
                 "load " + lines + " as free, losing any dirty data they held.";
  }
  if (!fallback_readable) {
    return out + " No committed copy of the page is readable: a salvage would drop " + lines +
           " from the cache; any dirty data they held would be lost.";
  }
  out += " Its older committed copy (round " + std::to_string(fallback_round) + ") is readable: " +
         std::to_string(fallback_used) + " lines in use, " + std::to_string(fallback_dirty) +
         " dirty (" + std::to_string(fallback_dirty_sectors * kSectorSize) + " bytes).";
  return out + " A salvage loading it would lose every change to " + lines + " after round " +
         std::to_string(fallback_round) + " (of up to " +
         std::to_string(uint64_t{line_count} * line_size) +
         " bytes of cached data), and could revive mappings since reused for other blocks.";
}

}  // namespace tiercache
