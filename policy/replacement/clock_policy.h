// ClockPolicy: CLOCK (second chance) over one shard's slot positions, the cheapest baseline: an
// occupied bit and a reference bit per slot (2 bits), a hand sweeping [0, capacity). Approximates
// LRU and, like it, is not scan-resistant. Not thread-safe (one per shard, under the shard lock).
#pragma once

#include <cstdint>

#include "policy/replacement/replacement_policy.h"
#include "policy/replacement/slot_bitmap.h"

namespace tiercache {

// New blocks start unreferenced; a hit sets the bit. The hand clears set bits as it passes and
// proposes the first unreferenced slot that can_evict() accepts, then rests on it: evicting or
// removing the slot under the hand moves the hand on, so a block inserted into the freed slot is
// the last one the hand reaches. A refused block keeps its bit and place and is tried again when
// the hand next reaches it, in the same call if the hand goes a full turn; a call ends after
// max_scan tries, or once every block has been refused since the last bit was cleared.
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

 private:
  void vacate(Slot slot);
  void advance() { hand_ = hand_ + 1 == capacity_ ? 0 : hand_ + 1; }

  uint32_t capacity_;
  uint32_t count_ = 0;  // occupied slots
  Slot hand_ = 0;
  SlotBitmap occupied_;
  SlotBitmap referenced_;
};

}  // namespace tiercache
