// ClockPolicy: CLOCK over one shard's slot positions, the cheapest baseline: a 2-bit state per
// slot (free, or how many more passes of the hand the block is spared), a hand sweeping
// [0, capacity). Approximates LRU and, like it, is not scan-resistant. Not thread-safe (one per
// shard, under the shard lock).
#pragma once

#include <cstdint>

#include "policy/replacement/replacement_policy.h"
#include "policy/replacement/slot_bitmap.h"

namespace tiercache {

// A new block is spared one pass of the hand, a hit sets two: the hand takes one away from every
// block it passes and proposes the first one with none left that can_evict() accepts, then rests
// on it. So a block hit since the hand last came by outlives a new one, and the hand's passes
// order blocks by age finer than one reference bit does (docs/policy-replacement.md). Evicting or
// removing the slot under the hand moves the hand on, so a block inserted into the freed slot is
// the last one the hand reaches. A refused block keeps its state and place and is tried again when
// the hand next reaches it, in the same call if the hand goes a full turn; a call ends after
// max_scan tries, or once every block has been refused since the hand last spared one.
class ClockPolicy final : public ReplacementPolicy {
 public:
  explicit ClockPolicy(uint32_t capacity);

  const char* name() const override { return "clock"; }
  void on_insert(Slot slot, uint64_t block) override;
  void on_hit(Slot slot) override;
  void on_remove(Slot slot) override { vacate(slot); }
  std::optional<Slot> pick_victim(const std::function<bool(Slot)>& can_evict,
                                  uint32_t max_scan) override;
  void on_evict(Slot slot, uint64_t block) override { vacate(slot); }
  uint64_t memory_size() const override;

  Slot hand() const { return hand_; }
  // Passes of the hand `slot` is still spared (0: a candidate); nullopt when the slot is free.
  std::optional<uint32_t> spared_passes(Slot slot) const;

 private:
  // Slot states, two bits: free, or a block spared state - kCandidate passes.
  enum State : uint32_t { kFree = 0, kCandidate = 1, kNew = 2, kHit = 3 };

  State state(Slot slot) const {
    return static_cast<State>(low_.test(slot) | (high_.test(slot) << 1));
  }
  void set_state(Slot slot, State s);
  void vacate(Slot slot);
  void advance() { hand_ = hand_ + 1 == capacity_ ? 0 : hand_ + 1; }

  uint32_t capacity_;
  uint32_t count_ = 0;  // occupied slots
  Slot hand_ = 0;
  SlotBitmap low_;   // the state's bit 0
  SlotBitmap high_;  // the state's bit 1
};

}  // namespace tiercache
