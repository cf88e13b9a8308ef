// ReturnTracker: follows a hash-chosen sample of blocks (1 in 2^sample_shift) for
// AdaptiveAdmission: did a missed or evicted block come back within `window` accesses, and was an
// admitted block evicted before its first hit? Entries of 8 bytes in 4-way buckets, sized for the
// sampled blocks that can be pending at once. Every recorded event ends exactly once: by a return
// (on_access) or in the Expired counts of an expire() call. Owns its table; not thread-safe (one
// per shard).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace tiercache {

class ReturnTracker {
 public:
  enum class Kind : uint8_t { kMiss, kEviction };
  struct Return {
    Kind kind;
    uint8_t level;  // the level recorded with the miss; 0 for evictions
    uint32_t distance = 0;  // accesses since the event
  };

  // `capacity`: the shard's slots; `window`: accesses within which a return counts (>= 1);
  // `sample_seed` picks which blocks are the sample (0: the usual ones).
  ReturnTracker(uint32_t capacity, uint32_t window, uint32_t sample_shift,
                uint32_t sample_seed = 0);

  // Whether `block` is in the sample; the calls below ignore blocks that are not.
  bool sampled(uint64_t block) const { return key(block).sampled; }
  // An access (hit or miss) to `block` at access number `now`: the pending miss or eviction it
  // resolves, if it comes back within the window. A hit also ends "admitted, unhit".
  std::optional<Return> on_access(uint64_t block, uint64_t now, bool hit);
  // `block` missed at `now`, at frequency `level`; `admitted` = it got a slot. False when the
  // block is not sampled (nothing recorded).
  bool record_miss(uint64_t block, uint64_t now, uint8_t level, bool admitted);
  // `block` was evicted at `now`: recorded when it is sampled (the eviction is then pending until
  // it ends), wasted when it also had been admitted and was never hit.
  struct EvictionRecord {
    bool recorded = false;
    bool wasted = false;
    bool operator==(const EvictionRecord&) const = default;
  };
  EvictionRecord record_eviction(uint64_t block, uint64_t now);
  // `block` left the cache, and only waste is asked about (no eviction is recorded): true when
  // it is sampled, had been admitted and was never hit. Its entry is freed.
  bool take_unhit(uint64_t block);

  static constexpr int kLevels = 16;  // levels fit in 4 bits
  struct Expired {
    uint32_t misses = 0, evictions = 0;
    std::array<uint32_t, kLevels> miss_levels{};  // expired misses by their recorded level
  };
  // Examines the next `steps` entries (a clock hand over the table) and ends the pending events
  // that have expired without a return; also reports the events that ended without a return since
  // the last call because their entry was reused (an eviction overwrites its block's pending
  // miss, a fingerprint collision, a full bucket) or their block came back too late.
  Expired expire(uint64_t now, uint32_t steps);
  uint32_t entries() const { return static_cast<uint32_t>(table_.size()); }

  uint32_t sample_shift() const { return sample_shift_; }
  uint64_t dropped() const { return dropped_; }  // live entries pushed out of a full bucket
  uint64_t memory_size() const { return table_.capacity() * sizeof(uint64_t); }

 private:
  static constexpr uint32_t kWays = 4;
  struct Key {
    bool sampled;
    uint32_t bucket;
    uint32_t fingerprint;
  };
  Key key(uint64_t block) const;
  uint64_t* find(const Key& k);
  uint64_t* find_or_take(const Key& k, uint64_t now);
  bool pending(uint64_t entry, uint64_t now) const;
  // A pending event past its window, not yet counted.
  bool expired(uint64_t entry, uint64_t now) const;
  static void Count(uint64_t entry, Expired& into);

  uint32_t window_;
  uint32_t sample_shift_;
  uint64_t hash_seed_;
  uint32_t bucket_mask_;
  uint64_t dropped_ = 0;
  uint32_t hand_ = 0;
  Expired unswept_;  // expired events whose entries were reused before the sweep reached them
  std::vector<uint64_t> table_;
};

}  // namespace tiercache
