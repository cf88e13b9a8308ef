// SlotBitmap: one bit per slot in 64-bit words, for per-slot flags of replacement policies
// (occupied, referenced, visited) at 1/8 byte per slot. Owns its words; not thread-safe.
#pragma once

#include <cstdint>
#include <vector>

namespace tiercache {

class SlotBitmap {
 public:
  explicit SlotBitmap(uint32_t size) : words_((uint64_t{size} + 63) / 64, 0) {}

  bool test(uint32_t i) const { return (words_[i / 64] >> (i % 64)) & 1; }
  void set(uint32_t i) { words_[i / 64] |= mask(i); }
  void reset(uint32_t i) { words_[i / 64] &= ~mask(i); }
  uint64_t memory_size() const { return words_.capacity() * sizeof(uint64_t); }

 private:
  static uint64_t mask(uint32_t i) { return uint64_t{1} << (i % 64); }
  std::vector<uint64_t> words_;
};

}  // namespace tiercache
