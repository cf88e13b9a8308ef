#include "cachelib/metadata/metadata_page.h"

#include <cassert>
#include <cstring>
#include <string>

namespace tiercache {
namespace {

using namespace format;

void EncodeBits(const SectorBits& bits, uint32_t count, std::span<std::byte> out) {
  for (size_t i = 0; i < out.size(); ++i) out[i] = std::byte{0};
  for (uint32_t s = 0; s < count; ++s) {
    if (bits.test(s)) out[s / 8] |= std::byte(1u << (s % 8));
  }
}

// Returns false if a bit beyond `count` is set.
bool DecodeBits(std::span<const std::byte> in, uint32_t count, SectorBits* bits) {
  for (uint32_t s = 0; s < in.size() * 8; ++s) {
    bool set = (std::to_integer<uint32_t>(in[s / 8]) >> (s % 8)) & 1;
    if (!set) continue;
    if (s >= count) return false;
    bits->set(s);
  }
  return true;
}

}  // namespace

void EncodeRecord(const Layout& layout, const LineRecord& record, std::span<std::byte> out) {
  assert(out.size() >= layout.record_size);
  PutU64(out, 0, record.core_line);
  EncodeBits(record.valid, layout.sectors_per_line, out.subspan(8, layout.bitmap_bytes));
  EncodeBits(record.dirty, layout.sectors_per_line,
             out.subspan(8 + layout.bitmap_bytes, layout.bitmap_bytes));
}

Result<LineRecord> DecodeRecord(const Layout& layout, std::span<const std::byte> in,
                                uint64_t core_lines) {
  assert(in.size() >= layout.record_size);
  LineRecord r;
  r.core_line = GetU64(in, 0);
  if (!DecodeBits(in.subspan(8, layout.bitmap_bytes), layout.sectors_per_line, &r.valid) ||
      !DecodeBits(in.subspan(8 + layout.bitmap_bytes, layout.bitmap_bytes), layout.sectors_per_line,
                  &r.dirty)) {
    return Status::Corruption("sector bit beyond the line");
  }
  if ((r.dirty & ~r.valid).any()) return Status::Corruption("dirty sector that is not valid");
  if (!r.in_use()) {
    if (r.valid.any()) return Status::Corruption("free line with valid sectors");
    return r;
  }
  if (r.core_line >= core_lines) {
    return Status::Corruption("core line " + std::to_string(r.core_line) + " beyond the core (" +
                              std::to_string(core_lines) + " lines)");
  }
  return r;
}

void BuildSlot(const SlotHeader& header, std::span<const std::byte> records,
               std::span<std::byte> slot) {
  assert(slot.size() == kBlockSize && records.size() <= kBlockSize - slot::kHeaderSize);
  std::memset(slot.data(), 0, slot.size());
  PutBytes(slot, slot::kMagicOffset,
           std::as_bytes(std::span<const char>(slot::kMagic.data(), slot::kMagic.size())));
  PutU64(slot, slot::kPageIndex, header.page_index);
  PutU64(slot, slot::kSequence, header.sequence);
  PutBytes(slot, slot::kUuid, std::as_bytes(std::span(header.uuid)));
  PutU32(slot, slot::kRecordCount, header.record_count);
  PutBytes(slot, slot::kHeaderSize, records);
  PutU64(slot, slot::kChecksum, Checksum(slot.subspan(16)));
}

SlotState CheckSlot(std::span<const std::byte> s, const SlotHeader& expected, uint64_t* round) {
  assert(s.size() == kBlockSize);
  if (std::memcmp(s.data(), slot::kMagic.data(), slot::kMagic.size()) != 0) {
    return IsAllZero(s) ? SlotState::kZero : SlotState::kDamaged;
  }
  if (GetU64(s, slot::kChecksum) != Checksum(s.subspan(16))) return SlotState::kDamaged;
  if (GetU64(s, slot::kPageIndex) != expected.page_index ||
      std::memcmp(s.data() + slot::kUuid, expected.uuid.data(), expected.uuid.size()) != 0 ||
      GetU32(s, slot::kRecordCount) != expected.record_count || GetU64(s, slot::kSequence) == 0) {
    return SlotState::kWrongHeader;
  }
  *round = GetU64(s, slot::kSequence);
  return SlotState::kValid;
}

bool HasSlotOfRound(std::span<const std::byte> page, const SlotHeader& expected, uint64_t round) {
  assert(page.size() == kPageStride);
  for (uint32_t i = 0; i < kSlotsPerPage; ++i) {
    uint64_t r = 0;
    if (CheckSlot(page.subspan(i * kBlockSize, kBlockSize), expected, &r) == SlotState::kValid &&
        r == round) {
      return true;
    }
  }
  return false;
}

namespace {

Status SlotCorruption(uint64_t page, uint32_t slot, const std::string& what) {
  return Status::Corruption("metadata page " + std::to_string(page) + " slot " +
                            (slot == 0 ? "A" : "B") + " " + what);
}

}  // namespace

Result<SlotChoice> ChooseSlot(std::span<const std::byte> page, const SlotHeader& expected,
                              const RoundRule& rule) {
  assert(page.size() == kPageStride);
  const uint64_t p = expected.page_index;
  SlotChoice best;
  bool found = false, have_zero = false, zero_b = false;
  for (uint32_t i = 0; i < kSlotsPerPage; ++i) {
    uint64_t round = 0;
    SlotState state = CheckSlot(page.subspan(i * kBlockSize, kBlockSize), expected, &round);
    if (state == SlotState::kWrongHeader) {
      return SlotCorruption(p, i, "has a valid checksum but a wrong header (page index, cache "
                                  "uuid, record count or round)");
    }
    if (state == SlotState::kZero) {
      if (!found && !have_zero) best.slot = i;
      have_zero = true;
      zero_b = i == 1;
      continue;
    }
    if (state == SlotState::kValid && round > rule.intent) {
      return SlotCorruption(p, i, "was written in round " + std::to_string(round) +
                                      ", after the last round the superblock knows (" +
                                      std::to_string(rule.intent) + "): the superblock is stale");
    }
    if (state == SlotState::kDamaged || round > rule.committed) {
      // Only the uncommitted round may have left a torn or unacknowledged slot behind.
      if (!rule.may_be_torn) {
        return SlotCorruption(p, i, state == SlotState::kDamaged
                                        ? "fails its checksum, and no uncommitted round wrote "
                                          "it: committed metadata is damaged"
                                        : "holds round " + std::to_string(round) +
                                              ", which never committed, but the page was not "
                                              "in that round");
      }
      best.rewrite = true;
      continue;
    }
    if (!found || round > best.sequence) {
      best.slot = i;
      best.sequence = round;
      found = true;
    }
  }
  // A never-written page's first write goes to slot B, the next to A (the slot not holding the
  // committed copy), and no write makes a slot zero again: B zero beside a committed A was lost
  // (zeroed, discarded), and B may have held the newer copy. (A zero beside B is a page written
  // once, or an A lost the same way: that one cannot be told.)
  if (found && zero_b && !rule.may_be_torn) {
    return SlotCorruption(p, 1, "is all zero, but slot A holds round " +
                                    std::to_string(best.sequence) + " and is written only after "
                                    "B: B was lost (zeroed or discarded), and it may have held "
                                    "the newer copy");
  }
  if (found) return best;
  if (!have_zero) {
    return Status::Corruption("metadata page " + std::to_string(p) +
                              ": no slot holds a committed copy (both torn or damaged)");
  }
  best.never_written = true;
  best.sequence = 0;
  return best;
}

}  // namespace tiercache
