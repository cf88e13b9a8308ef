#include "policy/admission/region_history.h"

#include <xxhash.h>

#include <algorithm>

namespace tiercache {
namespace {

constexpr uint64_t kSeed = 0x6a09e667f3bcc909ULL;
constexpr uint32_t kEpochs = 32;   // stamps wrap; the sweep clears entries before they do
constexpr uint32_t kMaxAge = 24;   // epochs per span
constexpr uint32_t kEpochMask = kEpochs - 1;
constexpr int kFingerprintShift = 5;
constexpr uint32_t kFingerprintMask = 0x3FF;
constexpr uint32_t kRecurred = 1u << 15;  // a block of the region was accessed twice
constexpr int kMapShift = 16;

uint32_t Fingerprint(uint32_t entry) { return (entry >> kFingerprintShift) & kFingerprintMask; }

}  // namespace

RegionHistory::RegionHistory(uint32_t entries, uint64_t span)
    : epoch_length_(std::max<uint64_t>(1, span / kMaxAge)),
      buckets_(std::max(1u, (entries + kWays - 1) / kWays)) {
  table_.assign(uint64_t{buckets_} * kWays, 0);
  sweep_steps_ = static_cast<uint32_t>((table_.size() + epoch_length_ - 1) / epoch_length_);
}

uint32_t RegionHistory::epoch_of(uint64_t now) const {
  return static_cast<uint32_t>((now / epoch_length_) & kEpochMask);
}

uint32_t RegionHistory::Age(uint32_t entry, uint32_t epoch) {
  return (epoch - entry) & kEpochMask;
}

// A full turn of the hand per epoch clears every entry older than the span before its stamp
// wraps and makes it look young.
void RegionHistory::sweep(uint32_t epoch) {
  for (uint32_t i = 0; i < sweep_steps_; ++i) {
    uint32_t& e = table_[hand_];
    hand_ = hand_ + 1 == table_.size() ? 0 : hand_ + 1;
    if (e != 0 && Age(e, epoch) > kMaxAge) e = 0;
  }
}

bool RegionHistory::touch(uint64_t block, uint64_t now) {
  const uint32_t epoch = epoch_of(now);
  sweep(epoch);
  const uint64_t region = block >> kRegionShift;
  const uint64_t h = XXH3_64bits_withSeed(&region, sizeof(region), kSeed);
  // The high half picks the bucket (multiply-shift: any bucket count), the low bits the
  // fingerprint; 0 marks a free entry.
  const uint32_t fingerprint = std::max<uint32_t>(1, h & kFingerprintMask);
  uint32_t* bucket = &table_[((h >> 32) * buckets_ >> 32) * kWays];
  uint32_t* slot = nullptr;
  for (uint32_t i = 0; i < kWays && !slot; ++i) {
    if (bucket[i] != 0 && Fingerprint(bucket[i]) == fingerprint) slot = &bucket[i];
  }
  uint32_t kept = 0;  // the block map and kRecurred, while the region is remembered
  if (slot) {
    if (Age(*slot, epoch) <= kMaxAge) kept = *slot & (~0u << kMapShift | kRecurred);
  } else {
    slot = Victim(bucket, epoch);
  }
  const uint32_t bit = 1u << (kMapShift + (block & ((1u << kRegionShift) - 1)));
  const bool seen = (kept & bit) != 0;
  *slot = kept | bit | (seen ? kRecurred : 0) | (fingerprint << kFingerprintShift) | epoch;
  return seen;
}

// A free entry; else, among regions none of whose blocks recurred, the most recently accessed:
// one-time reads streaming through a bucket take one entry in turn and leave the regions seen
// before them, which may yet come back (the next boot's files), until they age out. Regions that
// recurred go last, least recently accessed first.
uint32_t* RegionHistory::Victim(uint32_t* bucket, uint32_t epoch) {
  uint32_t* once = nullptr;
  uint32_t* oldest = &bucket[0];
  for (uint32_t i = 0; i < kWays; ++i) {
    uint32_t* e = &bucket[i];
    if (*e == 0) return e;
    if (Age(*e, epoch) > Age(*oldest, epoch)) oldest = e;
    if (!(*e & kRecurred) && (!once || Age(*e, epoch) < Age(*once, epoch))) once = e;
  }
  return once ? once : oldest;
}

}  // namespace tiercache
