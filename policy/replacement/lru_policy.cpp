#include "policy/replacement/lru_policy.h"

#include <cassert>

namespace tiercache {

LruPolicy::LruPolicy(uint32_t capacity) : prev_(capacity, kNone), next_(capacity, kNone) {}

void LruPolicy::link_front(Slot slot) {
  prev_[slot] = kNone;
  next_[slot] = head_;
  if (head_ != kNone) prev_[head_] = slot;
  head_ = slot;
  if (tail_ == kNone) tail_ = slot;
}

void LruPolicy::unlink(Slot slot) {
  if (!linked(slot)) return;
  Slot p = prev_[slot], n = next_[slot];
  if (p != kNone) next_[p] = n; else head_ = n;
  if (n != kNone) prev_[n] = p; else tail_ = p;
  prev_[slot] = next_[slot] = kNone;
}

void LruPolicy::on_insert(Slot slot, uint64_t) {
  assert(slot < prev_.size() && !linked(slot));
  link_front(slot);
}

void LruPolicy::on_hit(Slot slot) {
  if (!linked(slot) || head_ == slot) return;
  unlink(slot);
  link_front(slot);
}

void LruPolicy::on_remove(Slot slot) { unlink(slot); }

std::optional<ReplacementPolicy::Slot> LruPolicy::pick_victim(
    const std::function<bool(Slot)>& can_evict, uint32_t max_scan) {
  Slot s = tail_;
  for (uint32_t i = 0; i < max_scan && s != kNone; ++i, s = prev_[s]) {
    if (can_evict(s)) return s;
  }
  return std::nullopt;
}

uint64_t LruPolicy::memory_size() const {
  return (prev_.capacity() + next_.capacity()) * sizeof(Slot);
}

}  // namespace tiercache
