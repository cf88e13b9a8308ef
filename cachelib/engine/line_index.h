// LineIndex: finds the cache line (shard-local slot) holding a core line. Open addressing with
// linear probing over 32-bit entries (a 4-bit hash tag and the slot), sized for a load factor of at
// most 0.8 of the shard's lines, so it costs 5 bytes per line. Keys are not stored: a tag match is
// confirmed against the SlotTable. Deletion shifts entries back (no tombstones).
// Not thread-safe: guarded by the owning shard's mutex.
#pragma once

#include <cstdint>
#include <vector>

#include "cachelib/engine/slot_table.h"

namespace tiercache {

class LineIndex {
 public:
  static constexpr uint32_t kNotFound = ~uint32_t{0};
  static constexpr uint32_t kMaxSlots = (uint32_t{1} << 28) - 2;

  // REQUIRES lines <= kMaxSlots.
  explicit LineIndex(uint32_t lines);

  // The slot holding `core_line` according to `slots`, or kNotFound.
  uint32_t find(uint64_t core_line, const SlotTable& slots) const;
  // REQUIRES core_line is not indexed; slots.core_line(slot) == core_line.
  void insert(uint64_t core_line, uint32_t slot);
  // REQUIRES core_line is indexed at `slot`, and slots still says so.
  void erase(uint64_t core_line, uint32_t slot, const SlotTable& slots);
  uint64_t memory_size() const { return table_.capacity() * sizeof(uint32_t); }

 private:
  static constexpr uint32_t kTagShift = 28;
  static constexpr uint32_t kSlotMask = (uint32_t{1} << kTagShift) - 1;

  static uint64_t Hash(uint64_t key);
  size_t home(uint64_t hash) const { return size_t((hash & 0xFFFFFFFFull) * table_.size() >> 32); }
  static uint32_t Tag(uint64_t hash) { return uint32_t(hash >> 60); }
  size_t next(size_t pos) const { return pos + 1 == table_.size() ? 0 : pos + 1; }

  std::vector<uint32_t> table_;  // 0: empty; else tag << 28 | (slot + 1)
};

}  // namespace tiercache
