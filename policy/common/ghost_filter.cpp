#include "policy/common/ghost_filter.h"

#include <xxhash.h>

#include <algorithm>

namespace tiercache {
namespace {

// Fixed so that runs (and test expectations) are reproducible.
constexpr XXH64_hash_t kSeed = 0x7469657263616368ULL;  // "tiercach"

// Maps a uniform 64-bit value onto [0, n) without a division (Lemire's multiply-shift).
uint64_t FastRange(uint64_t x, uint64_t n) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(x) * n) >> 64);
}

}  // namespace

GhostFilter::GhostFilter(uint64_t capacity)
    : capacity_(capacity),
      generation_(capacity == 0 ? 0 : std::max<uint64_t>(1, capacity / 2)),
      bits_((generation_ * kBitsPerEntry + 63) / 64 * 64),
      current_(bits_ / 64, 0),
      older_(bits_ / 64, 0) {}

GhostFilter::Probe GhostFilter::probe_of(uint64_t block) {
  // One 128-bit hash gives two independent 64-bit halves for double hashing (Kirsch and
  // Mitzenmacher: k probes h1 + i*h2 match k independent hashes asymptotically). The block's
  // bytes are hashed in host order; tiercache targets little-endian hosts only.
  XXH128_hash_t h = XXH3_128bits_withSeed(&block, sizeof(block), kSeed);
  return Probe{h.low64, h.high64 | 1};
}

uint64_t GhostFilter::bit_index(const Probe& p, int i) const {
  return FastRange(p.h1 + static_cast<uint64_t>(i) * p.h2, bits_);
}

bool GhostFilter::test_all(const std::vector<uint64_t>& words, const Probe& p) const {
  for (int i = 0; i < kHashes; ++i) {
    uint64_t bit = bit_index(p, i);
    if ((words[bit / 64] & (uint64_t{1} << (bit % 64))) == 0) return false;
  }
  return true;
}

void GhostFilter::insert(uint64_t block) {
  if (generation_ == 0) return;
  if (current_inserts_ == generation_) {
    std::fill(older_.begin(), older_.end(), 0);
    current_.swap(older_);
    current_inserts_ = 0;
  }
  Probe p = probe_of(block);
  for (int i = 0; i < kHashes; ++i) {
    uint64_t bit = bit_index(p, i);
    current_[bit / 64] |= uint64_t{1} << (bit % 64);
  }
  ++current_inserts_;
}

bool GhostFilter::contains(uint64_t block) const {
  if (generation_ == 0) return false;
  Probe p = probe_of(block);
  return test_all(current_, p) || test_all(older_, p);
}

void GhostFilter::clear() {
  std::fill(current_.begin(), current_.end(), 0);
  std::fill(older_.begin(), older_.end(), 0);
  current_inserts_ = 0;
}

uint64_t GhostFilter::memory_size() const {
  return (current_.capacity() + older_.capacity()) * sizeof(uint64_t);
}

}  // namespace tiercache
