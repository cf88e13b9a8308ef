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
  uint64_t sequence = 0;  // the persist round the slot is written in (>= 1)
  std::array<uint8_t, 16> uuid{};
  uint32_t record_count = 0;
};

// Fills the 4096-byte `slot`: header, `records` (record_count * record_size bytes), zero tail,
// checksum.
void BuildSlot(const SlotHeader& header, std::span<const std::byte> records,
               std::span<std::byte> slot);

enum class SlotState {
  kZero,         // never written
  kDamaged,      // bad magic or checksum: a torn write, or damage
  kWrongHeader,  // checksum fine (a whole write) but page index, uuid, count or round wrong
  kValid,
};
// Checks a slot against what it must hold (page index, uuid, record count; the expected sequence
// is ignored). On kValid, *round is the slot's round.
SlotState CheckSlot(std::span<const std::byte> slot, const SlotHeader& expected, uint64_t* round);

// What the superblock says about persist rounds, for one page.
struct RoundRule {
  uint64_t committed = 0;      // rounds <= this are committed (after the completeness check)
  uint64_t intent = 0;         // the last round started; no slot may be newer
  bool may_be_torn = false;    // the page is in round `intent` and that round did not commit
};

struct SlotChoice {
  uint32_t slot = 0;      // the slot holding the committed copy (or, if never written, a zero one)
  uint64_t sequence = 0;  // its round; 0 when the page was never written
  bool never_written = false;
  bool rewrite = false;   // the other slot holds an uncommitted or torn write: overwrite it soon
};
// Picks the slot to load from an 8192-byte page (docs/on-disk-format.md "Load rules"): the valid
// slot with the highest committed round; slots of the uncommitted round are ignored, and may be
// torn, only if rule.may_be_torn. Corruption, naming the page and slot, for anything else: a
// damaged slot no uncommitted round explains, a whole slot with a wrong header, a round newer
// than rule.intent, or no usable slot.
Result<SlotChoice> ChooseSlot(std::span<const std::byte> page, const SlotHeader& expected,
                              const RoundRule& rule);

// True when one slot of `page` is valid and was written in `round` (round completeness check).
bool HasSlotOfRound(std::span<const std::byte> page, const SlotHeader& expected, uint64_t round);

}  // namespace tiercache
