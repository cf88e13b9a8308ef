#include "policy/replacement/clock_policy.h"

#include <cassert>

namespace tiercache {

ClockPolicy::ClockPolicy(uint32_t capacity)
    : capacity_(capacity), occupied_(capacity), referenced_(capacity) {
  assert(capacity > 0);
}

void ClockPolicy::on_insert(Slot slot, uint64_t) {
  assert(slot < capacity_ && !occupied_.test(slot));
  occupied_.set(slot);
  referenced_.reset(slot);
  ++count_;
}

void ClockPolicy::on_hit(Slot slot) {
  if (occupied_.test(slot)) referenced_.set(slot);
}

void ClockPolicy::vacate(Slot slot) {
  if (!occupied_.test(slot)) return;
  occupied_.reset(slot);
  referenced_.reset(slot);
  --count_;
  if (hand_ == slot) advance();
}

std::optional<ReplacementPolicy::Slot> ClockPolicy::pick_victim(
    const std::function<bool(Slot)>& can_evict, uint32_t max_scan) {
  // `refused` counts refusals since the last cleared bit: once it reaches count_, the hand went
  // a full turn in which every block was unreferenced and refused.
  uint32_t tries = 0, refused = 0;
  while (count_ > 0 && tries < max_scan && refused < count_) {
    Slot s = hand_;
    if (occupied_.test(s)) {
      if (referenced_.test(s)) {
        referenced_.reset(s);
        refused = 0;
      } else {
        ++tries;
        if (can_evict(s)) return s;
        ++refused;
      }
    }
    advance();
  }
  return std::nullopt;
}

uint64_t ClockPolicy::memory_size() const {
  return occupied_.memory_size() + referenced_.memory_size();
}

}  // namespace tiercache
