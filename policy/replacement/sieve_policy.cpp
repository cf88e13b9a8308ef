#include "policy/replacement/sieve_policy.h"

#include <cassert>

namespace tiercache {

SievePolicy::SievePolicy(uint32_t capacity)
    : prev_(capacity, kNone), next_(capacity, kNone), visited_(capacity) {
  assert(capacity > 0);
}

void SievePolicy::on_insert(Slot slot, uint64_t) {
  assert(slot < prev_.size() && !linked(slot));
  prev_[slot] = kNone;
  next_[slot] = head_;
  if (head_ != kNone) prev_[head_] = slot;
  head_ = slot;
  if (tail_ == kNone) tail_ = slot;
  visited_.reset(slot);
  ++count_;
}

void SievePolicy::on_hit(Slot slot) {
  if (linked(slot)) visited_.set(slot);
}

void SievePolicy::unlink(Slot slot) {
  if (!linked(slot)) return;
  // SIEVE moves the hand to the victim's newer neighbour, or back to the tail past the head.
  if (hand_ == slot) hand_ = prev_[slot];
  Slot p = prev_[slot], n = next_[slot];
  if (p != kNone)
    next_[p] = n;
  else
    head_ = n;
  if (n != kNone)
    prev_[n] = p;
  else
    tail_ = p;
  prev_[slot] = next_[slot] = kNone;
  visited_.reset(slot);
  --count_;
}

std::optional<ReplacementPolicy::Slot> SievePolicy::pick_victim(
    const std::function<bool(Slot)>& can_evict, uint32_t max_scan) {
  if (count_ == 0) return std::nullopt;
  Slot s = hand_ != kNone ? hand_ : tail_;
  // `refused` counts refusals since the last cleared bit; count_ of them is a full turn.
  uint32_t tries = 0, refused = 0;
  while (tries < max_scan && refused < count_) {
    if (visited_.test(s)) {
      visited_.reset(s);
      refused = 0;
    } else {
      ++tries;
      if (can_evict(s)) {
        hand_ = s;
        return s;
      }
      ++refused;
    }
    s = newer(s);
  }
  hand_ = s;
  return std::nullopt;
}

uint64_t SievePolicy::memory_size() const {
  return (prev_.capacity() + next_.capacity()) * sizeof(Slot) + visited_.memory_size();
}

}  // namespace tiercache
