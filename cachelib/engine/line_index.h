// LineIndex: finds the cache line (shard-local slot) holding a core line. Open addressing with
// linear probing, sized for a load factor of at most 0.8 of the shard's lines. An entry is the
// slot and a hash tag in 3 bytes when the slot number leaves at least 3 bits of tag (shards of
// up to 2M lines: 3.75 bytes per line), else in 4 (5 bytes per line). Keys are not stored: a tag
// match is confirmed against the SlotTable. Deletion shifts entries back (no tombstones).
// Not thread-safe: guarded by the owning shard's mutex.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#include "cachelib/engine/slot_table.h"

namespace tiercache {

// get() and set() keep an entry in its low bytes.
static_assert(std::endian::native == std::endian::little);

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
  // Points core_line's entry at `to` instead of `from`, in place: what erase and insert would do
  // for a block that moves, without erase's walk of the rest of the cluster (which reads the
  // SlotTable for each entry, a cache miss each). REQUIRES core_line is indexed at `from`.
  void relink(uint64_t core_line, uint32_t from, uint32_t to);
  uint64_t memory_size() const { return bytes_.capacity(); }
  // Bytes per entry: 3 or 4.
  uint32_t entry_bytes() const { return entry_bytes_; }

 private:
  static uint64_t Hash(uint64_t key);
  size_t home(uint64_t hash) const { return size_t((hash & 0xFFFFFFFFull) * entries_ >> 32); }
  uint32_t tag(uint64_t hash) const { return uint32_t(hash >> tag_shift_); }
  uint32_t entry_for(uint64_t hash, uint32_t slot) const {
    return tag(hash) << slot_bits_ | (slot + 1);
  }
  size_t next(size_t pos) const { return pos + 1 == entries_ ? 0 : pos + 1; }
  // Where the entry of the line with `hash` at `slot` is. REQUIRES it is indexed.
  size_t position(uint64_t hash, uint32_t slot) const;
  // Entries are read as 4 little-endian bytes (the table has 1 byte of padding) and masked.
  uint32_t get(size_t pos) const {
    uint32_t e;
    std::memcpy(&e, bytes_.data() + pos * entry_bytes_, sizeof e);
    return e & entry_mask_;
  }
  void set(size_t pos, uint32_t e) {
    std::memcpy(bytes_.data() + pos * entry_bytes_, &e, entry_bytes_);
  }
  uint32_t slot_of(uint32_t e) const { return (e & slot_mask_) - 1; }

  size_t entries_;
  uint32_t entry_bytes_;
  uint32_t slot_bits_;   // bits of slot + 1; the tag takes the entry's other bits
  uint32_t tag_shift_;   // 64 - tag bits (at least 3): the tag is the hash's top bits
  uint32_t slot_mask_;
  uint32_t entry_mask_;
  std::vector<uint8_t> bytes_;  // 0: empty; else tag << slot_bits_ | (slot + 1)
};

}  // namespace tiercache
