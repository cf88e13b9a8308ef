// SievePolicy: SIEVE (Zhang et al., NSDI'24) over one shard's slots: an insertion-ordered list
// threaded through two arrays of 32-bit slot indexes plus a visited bit per slot (8.125 bytes per
// slot). Not thread-safe (one per shard, under the shard lock).
#pragma once

#include <cstdint>
#include <vector>

#include "policy/replacement/replacement_policy.h"
#include "policy/replacement/slot_bitmap.h"

namespace tiercache {

// New blocks go to the head; a hit only sets the visited bit, never moves the block. The hand
// walks from the tail (oldest) toward the head, clearing visited bits, and proposes the first
// unvisited block can_evict() accepts; blocks it passes keep their place (unlike CLOCK, survivors
// are not moved to the head), so new blocks are judged quickly. The hand rests on the proposal;
// evicting or removing it moves the hand one step toward the head. Wraps to the tail at the head.
// A refused block keeps its place and is tried again when the hand next reaches it; a call ends
// after max_scan tries, or once every block has been refused since the last bit was cleared.
class SievePolicy final : public ReplacementPolicy {
 public:
  explicit SievePolicy(uint32_t capacity);

  const char* name() const override { return "sieve"; }
  void on_insert(Slot slot, uint64_t block) override;
  void on_hit(Slot slot) override;
  void on_remove(Slot slot) override { unlink(slot); }
  std::optional<Slot> pick_victim(const std::function<bool(Slot)>& can_evict,
                                  uint32_t max_scan) override;
  void on_evict(Slot slot, uint64_t block) override { unlink(slot); }
  uint64_t memory_size() const override;

 private:
  static constexpr Slot kNone = ~Slot{0};
  bool linked(Slot slot) const { return prev_[slot] != kNone || head_ == slot; }
  void unlink(Slot slot);
  // The next block toward the head, wrapping to the tail.
  Slot newer(Slot slot) const { return prev_[slot] != kNone ? prev_[slot] : tail_; }

  std::vector<Slot> prev_, next_;  // prev_ points toward the head (newer), next_ toward the tail
  SlotBitmap visited_;
  Slot head_ = kNone;  // newest
  Slot tail_ = kNone;  // oldest
  Slot hand_ = kNone;  // kNone: start at the tail
  uint32_t count_ = 0;
};

}  // namespace tiercache
