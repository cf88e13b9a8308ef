// RegionHistory: which 4 KiB blocks were accessed within the last `span` accesses, kept per
// 64 KiB region as a 16-bit map, so files read again by the next boot or application launch are
// remembered at a fraction of a per-block history's cost (one-time reads of fresh data are not).
// A full bucket gives up one-time regions before those seen earlier (Victim). 4 bytes per
// tracked region in 8-way buckets; not thread-safe (one per shard).
#pragma once

#include <cstdint>
#include <vector>

namespace tiercache {

class RegionHistory {
 public:
  static constexpr uint32_t kWays = 8;
  static constexpr int kRegionShift = 4;  // 16 blocks of 4 KiB

  // Tracks about `entries` regions (at least one bucket); `span` in accesses (>= 1). A region
  // is forgotten `span` accesses after its last access, or sooner when its bucket is full and
  // Victim picks it.
  RegionHistory(uint32_t entries, uint64_t span);

  // Counts an access to `block` at access number `now` (non-decreasing). Returns whether the
  // block was accessed before within the span (as far as its region is still remembered).
  bool touch(uint64_t block, uint64_t now);

  uint32_t entries() const { return static_cast<uint32_t>(table_.size()); }
  uint64_t memory_size() const { return table_.capacity() * sizeof(uint32_t); }

 private:
  uint32_t epoch_of(uint64_t now) const;
  static uint32_t Age(uint32_t entry, uint32_t epoch);
  // The entry a new region takes in a full bucket.
  static uint32_t* Victim(uint32_t* bucket, uint32_t epoch);
  void sweep(uint32_t epoch);

  uint64_t epoch_length_;
  uint32_t buckets_;
  uint32_t sweep_steps_;
  uint32_t hand_ = 0;
  // block map (16 bits) | recurred (1) | fingerprint (10) | epoch mod 32 (5)
  std::vector<uint32_t> table_;
};

}  // namespace tiercache
