#include "policy/admission/return_tracker.h"

#include <xxhash.h>

#include <algorithm>
#include <bit>
#include <utility>

namespace tiercache {
namespace {

constexpr uint64_t kSeed = 0x2c1b3c6dd0a5e4f7ULL;

// Entry layout: access stamp (32 bits), fingerprint (20), level (4), flags. An entry with
// neither kPending nor kUnhit is free.
constexpr uint64_t kStampMask = 0xFFFFFFFFULL;
constexpr int kFingerprintShift = 32;
constexpr uint64_t kFingerprintMask = 0xFFFFF;
constexpr int kLevelShift = 52;
constexpr uint64_t kPending = 1ULL << 56;  // a miss or eviction waiting for its return
constexpr uint64_t kEviction = 1ULL << 57;  // the pending event is an eviction
constexpr uint64_t kUnhit = 1ULL << 58;     // admitted, no hit yet

uint32_t Fingerprint(uint64_t entry) { return (entry >> kFingerprintShift) & kFingerprintMask; }

}  // namespace

// Pending entries: sampled blocks missed or evicted within the last window accesses; unhit
// entries: sampled cached blocks. Room for both at a load of at most 1/2.
ReturnTracker::ReturnTracker(uint32_t capacity, uint32_t window, uint32_t sample_shift,
                             uint32_t sample_seed)
    : window_(std::max(window, 1u)),
      sample_shift_(sample_shift),
      hash_seed_(kSeed + sample_seed) {
  const uint64_t live = std::max<uint64_t>((uint64_t{capacity} + window_) >> sample_shift_, 1);
  bucket_mask_ = static_cast<uint32_t>(std::bit_ceil((2 * live + kWays - 1) / kWays)) - 1;
  table_.assign((uint64_t{bucket_mask_} + 1) * kWays, 0);
}

// The low sample_shift bits of the hash choose the sample, the next ones the bucket.
ReturnTracker::Key ReturnTracker::key(uint64_t block) const {
  const uint64_t h = XXH3_64bits_withSeed(&block, sizeof(block), hash_seed_);
  return Key{(h & ((1ULL << sample_shift_) - 1)) == 0,
             static_cast<uint32_t>(h >> sample_shift_) & bucket_mask_,
             static_cast<uint32_t>((h >> 40) & kFingerprintMask)};
}

bool ReturnTracker::pending(uint64_t entry, uint64_t now) const {
  return (entry & kPending) && static_cast<uint32_t>(now - (entry & kStampMask)) <= window_;
}

uint64_t* ReturnTracker::find(const Key& k) {
  uint64_t* bucket = &table_[uint64_t{k.bucket} * kWays];
  for (uint32_t i = 0; i < kWays; ++i) {
    if ((bucket[i] & (kPending | kUnhit)) && Fingerprint(bucket[i]) == k.fingerprint) {
      return &bucket[i];
    }
  }
  return nullptr;
}

// Counts the pending event of `entry` as ended without a return.
void ReturnTracker::Count(uint64_t entry, Expired& into) {
  if (entry & kEviction) {
    ++into.evictions;
  } else {
    ++into.misses;
    ++into.miss_levels[(entry >> kLevelShift) & 0xF];
  }
}

bool ReturnTracker::expired(uint64_t entry, uint64_t now) const {
  return (entry & kPending) && !pending(entry, now);
}

// The entry of `k`, else a free or expired one, else the oldest. A pending event whose entry is
// reused ends without a return (counted for the next expire()), so every recorded event ends
// exactly once: by a return or in an Expired count.
uint64_t* ReturnTracker::find_or_take(const Key& k, uint64_t now) {
  if (uint64_t* e = find(k)) {
    if (*e & kPending) Count(*e, unswept_);
    *e &= ~(kPending | kEviction);
    return e;
  }
  uint64_t* bucket = &table_[uint64_t{k.bucket} * kWays];
  uint64_t* best = nullptr;
  for (uint32_t i = 0; i < kWays; ++i) {
    uint64_t* e = &bucket[i];
    if (!(*e & kUnhit) && !pending(*e, now)) {
      if (expired(*e, now)) Count(*e, unswept_);
      *e = 0;
      return e;
    }
    if (!best || static_cast<uint32_t>(now - (*e & kStampMask)) >
                     static_cast<uint32_t>(now - (*best & kStampMask))) {
      best = e;
    }
  }
  ++dropped_;
  if (*best & kPending) Count(*best, unswept_);
  *best = 0;
  return best;
}

std::optional<ReturnTracker::Return> ReturnTracker::on_access(uint64_t block, uint64_t now,
                                                              bool hit) {
  const Key k = key(block);
  uint64_t* e = k.sampled ? find(k) : nullptr;
  if (!e) return std::nullopt;
  std::optional<Return> ret;
  if (pending(*e, now)) {
    ret = Return{(*e & kEviction) ? Kind::kEviction : Kind::kMiss,
                 static_cast<uint8_t>((*e >> kLevelShift) & 0xF),
                 static_cast<uint32_t>(now - (*e & kStampMask))};
  } else if (expired(*e, now)) {
    Count(*e, unswept_);  // came back too late: an expiry the sweep missed
  }
  *e &= ~(kPending | kEviction);
  if (hit) *e &= ~kUnhit;
  return ret;
}

bool ReturnTracker::record_miss(uint64_t block, uint64_t now, uint8_t level, bool admitted) {
  const Key k = key(block);
  if (!k.sampled) return false;
  uint64_t* e = find_or_take(k, now);
  *e = (now & kStampMask) | (uint64_t{k.fingerprint} << kFingerprintShift) |
       (uint64_t{level & 0xFu} << kLevelShift) | kPending | (admitted ? kUnhit : 0);
  return true;
}

ReturnTracker::Expired ReturnTracker::expire(uint64_t now, uint32_t steps) {
  for (uint32_t i = 0; i < steps; ++i) {
    uint64_t& e = table_[hand_];
    hand_ = hand_ + 1 == table_.size() ? 0 : hand_ + 1;
    if (!expired(e, now)) continue;
    Count(e, unswept_);
    e &= ~(kPending | kEviction);
  }
  // Most calls end nothing: then no copy of the counts and no reset.
  if (unswept_.misses == 0 && unswept_.evictions == 0) return Expired{};
  return std::exchange(unswept_, Expired{});
}

ReturnTracker::EvictionRecord ReturnTracker::record_eviction(uint64_t block, uint64_t now) {
  const Key k = key(block);
  if (!k.sampled) return {};
  uint64_t* e = find_or_take(k, now);
  const bool wasted = (*e & kUnhit) != 0;
  *e = (now & kStampMask) | (uint64_t{k.fingerprint} << kFingerprintShift) | kPending | kEviction;
  return {.recorded = true, .wasted = wasted};
}

bool ReturnTracker::take_unhit(uint64_t block) {
  const Key k = key(block);
  uint64_t* e = k.sampled ? find(k) : nullptr;
  if (!e || !(*e & kUnhit)) return false;
  if (*e & kPending) Count(*e, unswept_);  // its miss ends without a return
  *e = 0;
  return true;
}

}  // namespace tiercache
