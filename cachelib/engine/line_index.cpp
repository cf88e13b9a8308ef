#include "cachelib/engine/line_index.h"

#include <algorithm>
#include <cassert>

namespace tiercache {

LineIndex::LineIndex(uint32_t lines) : table_(std::max<size_t>(16, size_t{lines} * 5 / 4 + 1), 0) {
  assert(lines <= kMaxSlots);
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
  const uint32_t tag = Tag(h);
  for (size_t pos = home(h);; pos = next(pos)) {
    uint32_t e = table_[pos];
    if (e == 0) return kNotFound;
    if ((e >> kTagShift) == tag) {
      uint32_t slot = (e & kSlotMask) - 1;
      if (slots.core_line(slot) == core_line) return slot;
    }
  }
}

void LineIndex::insert(uint64_t core_line, uint32_t slot) {
  const uint64_t h = Hash(core_line);
  size_t pos = home(h);
  while (table_[pos] != 0) pos = next(pos);
  table_[pos] = (Tag(h) << kTagShift) | (slot + 1);
}

void LineIndex::erase(uint64_t core_line, uint32_t slot, const SlotTable& slots) {
  const uint32_t wanted = (Tag(Hash(core_line)) << kTagShift) | (slot + 1);
  size_t hole = home(Hash(core_line));
  while (table_[hole] != wanted) {
    assert(table_[hole] != 0 && "erase of a line that is not indexed");
    hole = next(hole);
  }
  // Backward shift: move later entries of the cluster into the hole when their home allows it.
  for (size_t pos = next(hole);; pos = next(pos)) {
    uint32_t e = table_[pos];
    if (e == 0) break;
    size_t h = home(Hash(slots.core_line((e & kSlotMask) - 1)));
    bool movable = hole <= pos ? (h <= hole || h > pos) : (h <= hole && h > pos);
    if (movable) {
      table_[hole] = e;
      hole = pos;
    }
  }
  table_[hole] = 0;
}

}  // namespace tiercache
