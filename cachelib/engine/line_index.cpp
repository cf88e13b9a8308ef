#include "cachelib/engine/line_index.h"

#include <algorithm>
#include <bit>
#include <cassert>

namespace tiercache {
namespace {

// A 3-byte entry needs this many tag bits left beside the slot, or the index takes 4 bytes: with
// fewer, a probe would confirm false tag matches against the SlotTable (a cache miss) too often.
constexpr uint32_t kMinTagBits = 3;

}  // namespace

LineIndex::LineIndex(uint32_t lines)
    : entries_(std::max<size_t>(16, size_t{lines} * 5 / 4 + 1)),
      slot_bits_(std::max<uint32_t>(1, std::bit_width(lines))) {
  assert(lines <= kMaxSlots);
  entry_bytes_ = slot_bits_ + kMinTagBits <= 24 ? 3 : 4;
  const uint32_t tag_bits = entry_bytes_ * 8 - slot_bits_;
  tag_shift_ = 64 - tag_bits;
  slot_mask_ = (uint32_t{1} << slot_bits_) - 1;
  entry_mask_ = entry_bytes_ == 4 ? ~uint32_t{0} : (uint32_t{1} << 24) - 1;
  bytes_.assign(entries_ * entry_bytes_ + (4 - entry_bytes_), 0);
}

uint64_t LineIndex::Hash(uint64_t key) {
  // splitmix64's finalizer: every key bit moves the position and the tag.
  key ^= key >> 30;
  key *= 0xBF58476D1CE4E5B9ull;
  key ^= key >> 27;
  key *= 0x94D049BB133111EBull;
  return key ^ (key >> 31);
}

uint32_t LineIndex::find(uint64_t core_line, const SlotTable& slots) const {
  const uint64_t h = Hash(core_line);
  const uint32_t t = tag(h);
  for (size_t pos = home(h);; pos = next(pos)) {
    const uint32_t e = get(pos);
    if (e == 0) return kNotFound;
    if ((e >> slot_bits_) == t) {
      const uint32_t slot = slot_of(e);
      if (slots.core_line(slot) == core_line) return slot;
    }
  }
}

void LineIndex::insert(uint64_t core_line, uint32_t slot) {
  const uint64_t h = Hash(core_line);
  size_t pos = home(h);
  while (get(pos) != 0) pos = next(pos);
  set(pos, entry_for(h, slot));
}

size_t LineIndex::position(uint64_t hash, uint32_t slot) const {
  const uint32_t wanted = entry_for(hash, slot);
  size_t pos = home(hash);
  while (get(pos) != wanted) {
    assert(get(pos) != 0 && "the line is not indexed there");
    pos = next(pos);
  }
  return pos;
}

void LineIndex::relink(uint64_t core_line, uint32_t from, uint32_t to) {
  const uint64_t hash = Hash(core_line);
  set(position(hash, from), entry_for(hash, to));
}

void LineIndex::erase(uint64_t core_line, uint32_t slot, const SlotTable& slots) {
  size_t hole = position(Hash(core_line), slot);
  // Backward shift: move later entries of the cluster into the hole when their home allows it.
  for (size_t pos = next(hole);; pos = next(pos)) {
    const uint32_t e = get(pos);
    if (e == 0) break;
    const size_t h = home(Hash(slots.core_line(slot_of(e))));
    const bool movable = hole <= pos ? (h <= hole || h > pos) : (h <= hole && h > pos);
    if (movable) {
      set(hole, e);
      hole = pos;
    }
  }
  set(hole, 0);
}

}  // namespace tiercache
