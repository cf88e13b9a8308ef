#include "policy/admission/frequency_table.h"

#include <xxhash.h>

#include <algorithm>
#include <bit>

namespace tiercache {
namespace {

constexpr uint64_t kSeed = 0x5bd1e9955bd1e995ULL;
constexpr uint16_t kCountMask = 0xF;

}  // namespace

FrequencyTable::FrequencyTable(uint32_t entries, uint64_t sample_size)
    : bucket_mask_(std::bit_floor(std::max(entries / kWays, 1u)) - 1),
      sample_size_(std::max<uint64_t>(sample_size, 1)),
      table_((bucket_mask_ + 1) * kWays, 0) {}

FrequencyTable::Slot FrequencyTable::locate(uint64_t key) const {
  const uint64_t h = XXH3_64bits_withSeed(&key, sizeof(key), kSeed);
  const uint16_t fingerprint = static_cast<uint16_t>(h >> 48) & ~kCountMask;
  return Slot{static_cast<uint32_t>(h) & bucket_mask_, fingerprint};
}

uint32_t FrequencyTable::find(const uint16_t* bucket, uint16_t fingerprint) {
  for (uint32_t i = 0; i < kWays; ++i) {
    if ((bucket[i] & kCountMask) != 0 && (bucket[i] & ~kCountMask) == fingerprint) return i;
  }
  return kWays;
}

uint32_t FrequencyTable::increment(uint64_t key) {
  const Slot slot = locate(key);
  uint16_t* bucket = &table_[slot.bucket * kWays];
  uint32_t pos = find(bucket, slot.fingerprint);
  uint16_t entry;
  if (pos < kWays) {
    entry = bucket[pos];
    if ((entry & kCountMask) < kMaxCount) ++entry;
  } else {
    // The victim: the lowest count, and among equals the least recent (the last such position).
    pos = 0;
    for (uint32_t i = 1; i < kWays; ++i) {
      if ((bucket[i] & kCountMask) <= (bucket[pos] & kCountMask)) pos = i;
    }
    entry = slot.fingerprint | 1;
  }
  std::copy_backward(bucket, bucket + pos, bucket + pos + 1);
  bucket[0] = entry;
  if (++additions_ < sample_size_) return entry & kCountMask;
  age();
  return estimate(key);
}

uint32_t FrequencyTable::estimate(uint64_t key) const {
  const Slot slot = locate(key);
  const uint16_t* bucket = &table_[slot.bucket * kWays];
  const uint32_t pos = find(bucket, slot.fingerprint);
  return pos < kWays ? bucket[pos] & kCountMask : 0;
}

void FrequencyTable::age() {
  for (uint16_t* bucket = table_.data(); bucket != table_.data() + table_.size(); bucket += kWays) {
    // Halve, then close the gaps left by keys that fell to 0, keeping the recency order.
    uint32_t kept = 0;
    for (uint32_t i = 0; i < kWays; ++i) {
      const uint16_t count = (bucket[i] & kCountMask) >> 1;
      if (count != 0) bucket[kept++] = static_cast<uint16_t>((bucket[i] & ~kCountMask) | count);
    }
    std::fill(bucket + kept, bucket + kWays, 0);
  }
  additions_ /= 2;
  ++agings_;
}

}  // namespace tiercache
