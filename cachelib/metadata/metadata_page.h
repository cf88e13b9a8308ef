// Metadata page encoding: line records packed into 4096-byte slots, two slots per page written
// alternately. Builds a slot (header + records + checksum), checks one, and chooses the slot to
// load. Layout in format.h and docs/on-disk-format.md. Plain functions; thread-compatible.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "cachelib/common/status.h"
#include "cachelib/metadata/format.h"
#include "cachelib/metadata/line_record.h"

namespace tiercache {

// Writes `record` into layout.record_size bytes of `out`.
void EncodeRecord(const format::Layout& layout, const LineRecord& record, std::span<std::byte> out);
// Decodes one record and checks it: bits only for existing sectors, dirty implies valid, a free
// record has no bits, core_line < core_lines. Corruption (short reason) otherwise.
Result<LineRecord> DecodeRecord(const format::Layout& layout, std::span<const std::byte> in,
                                uint64_t core_lines);

struct SlotHeader {
  uint64_t page_index = 0;
  uint64_t sequence = 0;
  std::array<uint8_t, 16> uuid{};
  uint32_t record_count = 0;
};

// Fills the 4096-byte `slot`: header, `records` (record_count * record_size bytes), zero tail,
// checksum.
void BuildSlot(const SlotHeader& header, std::span<const std::byte> records,
               std::span<std::byte> slot);

enum class SlotState { kZero, kInvalid, kValid };
// Checks a slot against what it must hold (page index, uuid, record count; the expected sequence
// is ignored). On kValid, *sequence is the slot's sequence.
SlotState CheckSlot(std::span<const std::byte> slot, const SlotHeader& expected,
                    uint64_t* sequence);

struct SlotChoice {
  uint32_t slot = 0;      // the slot holding the durable copy (or, if never written, slot A)
  uint64_t sequence = 0;  // 0 when the page was never written
  bool never_written = false;
};
// Picks the slot to load from an 8192-byte page: the valid slot with the higher sequence; an
// all-zero slot counts as "never written" (sequence 0). Corruption when neither slot is usable.
Result<SlotChoice> ChooseSlot(std::span<const std::byte> page, const SlotHeader& expected);

}  // namespace tiercache
