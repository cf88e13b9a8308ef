#include "cachelib/engine/slot_table.h"

#include <cassert>

namespace tiercache {

SlotTable::SlotTable(uint32_t lines, uint32_t sectors_per_line)
    : sectors_per_line_(sectors_per_line),
      bitmap_words_(sectors_per_line == 1 ? 0 : (sectors_per_line + 63) / 64),
      words_(lines, kLineMask),
      bitmaps_(size_t{lines} * 2 * bitmap_words_, 0) {
  assert(sectors_per_line >= 1 && sectors_per_line <= kMaxSectorsPerLine);
}

uint64_t SlotTable::core_line(uint32_t i) const {
  uint64_t line = words_[i] & kLineMask;
  return line == kLineMask ? LineRecord::kNoCoreLine : line;
}

void SlotTable::assign(uint32_t i, uint64_t core_line) {
  assert(core_line < kLineMask);
  words_[i] = core_line;
  clear_bits(i);
}

void SlotTable::clear_bits(uint32_t i) {
  for (uint32_t w = 0; w < 2 * bitmap_words_; ++w) bitmaps_[size_t{i} * 2 * bitmap_words_ + w] = 0;
}

SectorBits SlotTable::load_bitmap(uint32_t i, uint32_t which) const {
  SectorBits bits;
  const uint64_t* src = &bitmaps_[(size_t{i} * 2 + which) * bitmap_words_];
  for (uint32_t w = bitmap_words_; w-- > 0;) {
    bits <<= 64;
    bits |= SectorBits(src[w]);
  }
  return bits;
}

void SlotTable::store_bitmap(uint32_t i, uint32_t which, const SectorBits& bits) {
  uint64_t* dst = &bitmaps_[(size_t{i} * 2 + which) * bitmap_words_];
  const SectorBits low64(~uint64_t{0});
  for (uint32_t w = 0; w < bitmap_words_; ++w) {
    dst[w] = ((bits >> (64 * w)) & low64).to_ullong();
  }
}

SectorBits SlotTable::valid(uint32_t i) const {
  if (bitmap_words_ == 0) return SectorBits((words_[i] & kValid) ? 1 : 0);
  return load_bitmap(i, 0);
}

SectorBits SlotTable::dirty(uint32_t i) const {
  if (bitmap_words_ == 0) return SectorBits((words_[i] & kDirty) ? 1 : 0);
  return load_bitmap(i, 1);
}

bool SlotTable::any_dirty(uint32_t i) const {
  if (bitmap_words_ == 0) return words_[i] & kDirty;
  const uint64_t* src = &bitmaps_[(size_t{i} * 2 + 1) * bitmap_words_];
  for (uint32_t w = 0; w < bitmap_words_; ++w) {
    if (src[w] != 0) return true;
  }
  return false;
}

void SlotTable::set_valid(uint32_t i, const SectorBits& bits) {
  assert(in_use(i) || bits.none());
  if (bitmap_words_ == 0) return set_flag(i, kValid, bits.test(0));
  store_bitmap(i, 0, bits);
}

void SlotTable::set_dirty(uint32_t i, const SectorBits& bits) {
  if (bitmap_words_ == 0) return set_flag(i, kDirty, bits.test(0));
  store_bitmap(i, 1, bits);
}

LineRecord SlotTable::record(uint32_t i) const {
  if (!in_use(i) || limbo(i)) return LineRecord{};
  // An untrusted line's clean copies are not claimed: a crash forgets them.
  return LineRecord{core_line(i), untrusted(i) ? dirty(i) : valid(i), dirty(i)};
}

uint64_t SlotTable::memory_size() const {
  return words_.capacity() * sizeof(uint64_t) + bitmaps_.capacity() * sizeof(uint64_t);
}

}  // namespace tiercache
