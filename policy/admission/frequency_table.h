// FrequencyTable: access counts of the most frequent recent 64-bit keys, in 2 bytes per tracked
// key: a set-associative table of 12-bit fingerprints with 4-bit counters, 8 per bucket. A new key
// takes the place of the bucket's least counted, least recent key, so keys seen once churn through
// while repeated keys stay; counts are halved every `sample_size` increments. Unlike a count-min
// sketch, keys never seen read 0 however many one-time keys pass, which is what admission needs
// to tell a returning block from a scan. Owns its table; not thread-safe (one per shard).
#pragma once

#include <cstdint>
#include <vector>

namespace tiercache {

class FrequencyTable {
 public:
  static constexpr uint32_t kWays = 8;
  static constexpr uint32_t kMaxCount = 15;

  // Tracks about `entries` keys (rounded down to a power-of-two number of buckets, at least one
  // bucket); `sample_size` = increments between two agings (>= 1).
  FrequencyTable(uint32_t entries, uint64_t sample_size);

  // Counts one occurrence of `key` (saturating at kMaxCount) and makes it the bucket's most
  // recent; returns its count, as estimate() would.
  uint32_t increment(uint64_t key);
  // Occurrences of `key` counted since it entered the table, halved by each aging; 0 if absent.
  uint32_t estimate(uint64_t key) const;
  // Halves every count; keys whose count drops to 0 leave.
  void age();

  uint32_t entries() const { return static_cast<uint32_t>(table_.size()); }
  uint64_t agings() const { return agings_; }
  uint64_t memory_size() const { return table_.capacity() * sizeof(uint16_t); }

 private:
  struct Slot {
    uint32_t bucket;
    uint16_t fingerprint;  // in bits 4..15; bits 0..3 of an entry hold its count (0 = empty)
  };
  Slot locate(uint64_t key) const;
  // Index in the bucket of `fingerprint`'s entry, or kWays.
  static uint32_t find(const uint16_t* bucket, uint16_t fingerprint);

  uint32_t bucket_mask_;
  uint64_t sample_size_;
  uint64_t additions_ = 0;
  uint64_t agings_ = 0;
  std::vector<uint16_t> table_;  // buckets of kWays entries, most recent first
};

}  // namespace tiercache
