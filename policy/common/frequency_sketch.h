// FrequencySketch: approximate access counts of 64-bit keys (TinyLFU style) in at most one byte
// per cache slot: a count-min sketch of 4-bit counters with periodic aging, plus an optional
// doorkeeper bit set that absorbs first occurrences. Owns its tables; not thread-safe (one per
// shard, under the shard lock). Deterministic: hashing is XXH3 with fixed seeds.
#pragma once

#include <cstdint>
#include <vector>

namespace tiercache {

class FrequencySketch {
 public:
  static constexpr uint32_t kDepth = 4;         // rows; a key owns one counter in each
  static constexpr uint32_t kMaxCount = 15;     // 4-bit counters saturate here
  static constexpr uint32_t kCountersPerWord = 16;

  // `capacity`: slots of the cache the sketch serves (>= 1). Each row holds
  // max(16, bit_floor(capacity) / 2) counters, so the rows take between 1/2 and 1 byte per slot.
  // `sample_size`: increments between two agings (0 = 10 * capacity). `doorkeeper`: adds a
  // bit set of kDepth * width bits (1/4 of the counters' memory) that takes first occurrences, so
  // keys seen once cost the counters nothing.
  explicit FrequencySketch(uint32_t capacity, uint64_t sample_size = 0, bool doorkeeper = false);

  // Counts one occurrence of `key`; ages the sketch when sample_size increments accumulated.
  void increment(uint64_t key);
  // Estimated occurrences of `key` since it was last aged, in [0, kMaxCount + doorkeeper]. Never
  // below the true count as long as that is <= kMaxCount and no aging happened.
  uint32_t estimate(uint64_t key) const;
  // Halves every counter and clears the doorkeeper, so old popularity fades.
  void age();

  uint32_t width() const { return width_; }
  uint64_t sample_size() const { return sample_size_; }
  uint64_t additions() const { return additions_; }  // increments since the last aging (halved)
  uint64_t agings() const { return agings_; }
  uint64_t memory_size() const;

 private:
  struct Hash {
    uint32_t a, b;  // row i uses counter (a + i * b) mod width (double hashing)
  };
  static Hash hash(uint64_t key);
  uint32_t index(const Hash& h, uint32_t row) const { return (h.a + row * h.b) & (width_ - 1); }
  uint32_t counter(uint32_t row, uint32_t idx) const;
  bool doorkeeper_test_and_set(const Hash& h);
  bool doorkeeper_contains(const Hash& h) const;

  uint32_t width_;                  // counters per row, a power of two
  uint64_t sample_size_;
  uint64_t additions_ = 0;
  uint64_t agings_ = 0;
  std::vector<uint64_t> table_;     // kDepth rows of width_ / 16 words
  std::vector<uint64_t> doorkeeper_;  // empty when disabled; kDepth * width_ bits
};

}  // namespace tiercache
