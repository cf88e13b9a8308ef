#include "policy/common/frequency_sketch.h"

#include <xxhash.h>

#include <algorithm>
#include <bit>

namespace tiercache {
namespace {

constexpr uint64_t kSeed = 0x7a3c9e21b4d5f607ULL;
constexpr uint64_t kHalveMask = 0x7777777777777777ULL;  // drops the bit shifted in from above

}  // namespace

FrequencySketch::FrequencySketch(uint32_t capacity, uint64_t sample_size, bool doorkeeper)
    : width_(std::max<uint32_t>(kCountersPerWord, std::bit_floor(std::max(capacity, 1u)) / 2)),
      sample_size_(sample_size != 0 ? sample_size : 10ULL * std::max(capacity, 1u)),
      table_(kDepth * width_ / kCountersPerWord, 0) {
  if (doorkeeper) doorkeeper_.assign(kDepth * width_ / 64, 0);
}

FrequencySketch::Hash FrequencySketch::hash(uint64_t key) {
  uint64_t h = XXH3_64bits_withSeed(&key, sizeof(key), kSeed);
  return Hash{static_cast<uint32_t>(h), static_cast<uint32_t>(h >> 32) | 1u};
}

uint32_t FrequencySketch::counter(uint32_t row, uint32_t idx) const {
  uint64_t word = table_[(row * width_ + idx) / kCountersPerWord];
  return (word >> ((idx % kCountersPerWord) * 4)) & 0xF;
}

// Two probes into one bit set: bits a and a + b.
bool FrequencySketch::doorkeeper_contains(const Hash& h) const {
  const uint64_t mask = doorkeeper_.size() * 64 - 1;
  for (uint64_t bit : {h.a & mask, (h.a + h.b) & mask}) {
    if (!(doorkeeper_[bit / 64] >> (bit % 64) & 1)) return false;
  }
  return true;
}

bool FrequencySketch::doorkeeper_test_and_set(const Hash& h) {
  if (doorkeeper_contains(h)) return true;
  const uint64_t mask = doorkeeper_.size() * 64 - 1;
  for (uint64_t bit : {h.a & mask, (h.a + h.b) & mask}) doorkeeper_[bit / 64] |= 1ULL << (bit % 64);
  return false;
}

// Conservative update: only the counters at the current minimum grow, which keeps the
// overestimation of keys sharing counters small and never lets an estimate fall below the truth.
void FrequencySketch::increment(uint64_t key) {
  const Hash h = hash(key);
  bool added = false;
  if (!doorkeeper_.empty() && !doorkeeper_test_and_set(h)) {
    added = true;
  } else {
    uint32_t idx[kDepth];
    uint32_t min = kMaxCount;
    for (uint32_t row = 0; row < kDepth; ++row) {
      idx[row] = index(h, row);
      min = std::min(min, counter(row, idx[row]));
    }
    if (min < kMaxCount) {
      for (uint32_t row = 0; row < kDepth; ++row) {
        if (counter(row, idx[row]) != min) continue;
        table_[(row * width_ + idx[row]) / kCountersPerWord] +=
            1ULL << ((idx[row] % kCountersPerWord) * 4);
      }
      added = true;
    }
  }
  if (added && ++additions_ >= sample_size_) age();
}

uint32_t FrequencySketch::estimate(uint64_t key) const {
  const Hash h = hash(key);
  uint32_t min = kMaxCount;
  for (uint32_t row = 0; row < kDepth; ++row) min = std::min(min, counter(row, index(h, row)));
  if (!doorkeeper_.empty() && doorkeeper_contains(h)) ++min;
  return min;
}

void FrequencySketch::age() {
  for (uint64_t& word : table_) word = (word >> 1) & kHalveMask;
  std::fill(doorkeeper_.begin(), doorkeeper_.end(), 0);
  additions_ /= 2;
  ++agings_;
}

uint64_t FrequencySketch::memory_size() const {
  return (table_.capacity() + doorkeeper_.capacity()) * sizeof(uint64_t);
}

}  // namespace tiercache
