#include "policy/replacement/clock_policy.h"

#include <cassert>

namespace tiercache {

ClockPolicy::ClockPolicy(uint32_t capacity) : capacity_(capacity), low_(capacity), high_(capacity) {
  assert(capacity > 0);
}

void ClockPolicy::set_state(Slot slot, State s) {
  s & 1 ? low_.set(slot) : low_.reset(slot);
  s & 2 ? high_.set(slot) : high_.reset(slot);
}

std::optional<uint32_t> ClockPolicy::spared_passes(Slot slot) const {
  const State s = state(slot);
  if (s == kFree) return std::nullopt;
  return s - kCandidate;
}

void ClockPolicy::on_insert(Slot slot, uint64_t) {
  assert(slot < capacity_ && state(slot) == kFree);
  set_state(slot, kNew);
  ++count_;
}

void ClockPolicy::on_hit(Slot slot) {
  if (state(slot) != kFree) set_state(slot, kHit);
}

void ClockPolicy::vacate(Slot slot) {
  if (state(slot) == kFree) return;
  set_state(slot, kFree);
  --count_;
  if (hand_ == slot) advance();
}

std::optional<ReplacementPolicy::Slot> ClockPolicy::pick_victim(
    const std::function<bool(Slot)>& can_evict, uint32_t max_scan) {
  // `refused` counts refusals since the hand last spared a block: once it reaches count_, the
  // hand went a full turn in which every block was a candidate and refused.
  uint32_t tries = 0, refused = 0;
  while (count_ > 0 && tries < max_scan && refused < count_) {
    const Slot s = hand_;
    const State st = state(s);
    if (st > kCandidate) {
      set_state(s, static_cast<State>(st - 1));
      refused = 0;
    } else if (st == kCandidate) {
      ++tries;
      if (can_evict(s)) return s;
      ++refused;
    }
    advance();
  }
  return std::nullopt;
}

uint64_t ClockPolicy::memory_size() const { return low_.memory_size() + high_.memory_size(); }

}  // namespace tiercache
