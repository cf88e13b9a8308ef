// GhostFilter: an approximate set of recently evicted 64-bit block numbers that forgets them in
// FIFO order, for policies that want "was this evicted recently?" at about 1 byte per entry.
// Owns its bit arrays; not thread-safe (one per shard, under the shard lock).
#pragma once

#include <cstdint>
#include <vector>

namespace tiercache {

// Two Bloom filters of equal size, each taking one generation of `generation()` inserts: insert
// goes into the current one, contains() asks both; when the current one is full, the older one is
// cleared and becomes the current one. Hence, counting every insert (repeats included):
//   - an entry stays present for at least the next generation() inserts (no false negatives);
//   - an entry is gone after 2 * generation() - j further inserts, j its 0-based index in its
//     generation, so always after 2 * generation() (== capacity for even capacity >= 2);
//   - an absent entry reads as present with probability at most 1 - (1 - p)^2, p being the
//     false-positive rate of one full filter: (1 - e^(-k*n/m))^k with k = 5 hashes and
//     m/n = 8 bits per entry, p = 2.17%, so <= 4.29% (both generations full).
// Each filter has 8 bits per generation entry: 2 * 8 * capacity/2 bits = capacity bytes in all.
// Entries cannot be erased (Bloom bits are shared); a stale entry just ages out.
class GhostFilter {
 public:
  // Remembers between max(1, capacity/2) and max(2, capacity) of the latest inserts; a
  // capacity of 0 gives a filter that holds nothing.
  explicit GhostFilter(uint64_t capacity);

  void insert(uint64_t block);
  bool contains(uint64_t block) const;
  // Forgets everything (both generations).
  void clear();

  uint64_t capacity() const { return capacity_; }
  // Inserts per generation (0 for capacity 0).
  uint64_t generation() const { return generation_; }
  uint64_t memory_size() const;

  static constexpr int kHashes = 5;
  static constexpr int kBitsPerEntry = 8;

 private:
  struct Probe {
    uint64_t h1, h2;  // bit i of the probe is (h1 + i * h2) mapped onto [0, bits_)
  };
  static Probe probe_of(uint64_t block);
  uint64_t bit_index(const Probe& p, int i) const;
  bool test_all(const std::vector<uint64_t>& words, const Probe& p) const;

  uint64_t capacity_;
  uint64_t generation_;  // inserts a filter takes before the two swap roles
  uint64_t bits_;        // bits per filter, a multiple of 64
  uint64_t current_inserts_ = 0;
  std::vector<uint64_t> current_, older_;
};

}  // namespace tiercache
