#include "policy/replacement/s3fifo_policy.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace tiercache {
namespace {

uint32_t SmallTarget(uint32_t capacity, double share) {
  return std::clamp<uint32_t>(static_cast<uint32_t>(std::lround(share * capacity)), 1, capacity);
}

}  // namespace

// What one pick_victim() call has spent: candidates offered to can_evict(), and refusals per
// queue (main's since the hand last found a hit, so main_refused == main size is a full turn).
struct S3FifoPolicy::Scan {
  uint32_t tries = 0;
  uint32_t small_refused = 0;
  uint32_t main_refused = 0;
};

S3FifoPolicy::S3FifoPolicy(uint32_t capacity, double small_share)
    : capacity_(capacity),
      small_target_(SmallTarget(capacity, small_share)),
      state_(capacity, 0),
      ring_(small_target_ + small_target_ / 8 + 1),
      ghost_(capacity - small_target_) {
  assert(capacity > 0 && small_share > 0 && small_share < 1);
}

void S3FifoPolicy::on_insert(Slot slot, uint64_t block) {
  assert(slot < capacity_ && queue(slot) == kFree);
  set_freq(slot, 0);
  if (ghost_.contains(block)) {
    ++ghost_hits_;
    set_queue(slot, kMain);
    ++main_count_;
    return;
  }
  if (small_live_ == small_target_) {
    Slot oldest = pop_small_oldest();
    uint64_t& counter = freq(oldest) > 0 ? promotions_ : small_overflows_;
    ++counter;
    move_to_main(oldest);
  }
  ring_push(slot);
  set_queue(slot, kSmall);
  ++small_live_;
}

void S3FifoPolicy::on_hit(Slot slot) {
  if (queue(slot) != kFree && freq(slot) < 3) set_freq(slot, freq(slot) + 1);
}

void S3FifoPolicy::on_evict(Slot slot, uint64_t block) {
  Queue q = queue(slot);
  bool unused = freq(slot) == 0;
  vacate(slot);
  if (q == kSmall) {
    ++small_evictions_;
    if (unused) ghost_.insert(block);
  } else if (q == kMain) {
    ++main_evictions_;
  }
}

void S3FifoPolicy::vacate(Slot slot) {
  switch (queue(slot)) {
    case kFree:
      return;
    case kSmall:
      leave_small_ring(slot);
      --small_live_;
      break;
    case kMain:
      --main_count_;
      if (hand_ == slot) advance_hand();
      break;
  }
  set_queue(slot, kFree);
  set_freq(slot, 0);
}

void S3FifoPolicy::move_to_main(Slot slot) {
  set_queue(slot, kMain);
  ++main_count_;
}

std::optional<ReplacementPolicy::Slot> S3FifoPolicy::pick_victim(
    const std::function<bool(Slot)>& can_evict, uint32_t max_scan) {
  Scan scan;
  while (scan.tries < max_scan) {
    bool small_left = scan.small_refused < small_live_;
    bool main_left = scan.main_refused < main_count_;
    if (!small_left && !main_left) break;
    bool from_small = small_left && (small_live_ >= small_target_ || !main_left);
    std::optional<Slot> victim =
        from_small ? step_small(can_evict, scan) : step_main(can_evict, scan);
    if (victim) return victim;
  }
  return std::nullopt;
}

std::optional<ReplacementPolicy::Slot> S3FifoPolicy::step_small(
    const std::function<bool(Slot)>& can_evict, Scan& scan) {
  Slot s = small_oldest();
  if (freq(s) > 0) {
    pop_small_oldest();
    ++promotions_;
    move_to_main(s);
    return std::nullopt;
  }
  ++scan.tries;
  if (can_evict(s)) return s;  // stays the oldest until on_evict() takes it
  ring_pop();                  // refused: requeue at the head, keeping it in the small FIFO
  ring_push(s);
  ++scan.small_refused;
  return std::nullopt;
}

std::optional<ReplacementPolicy::Slot> S3FifoPolicy::step_main(
    const std::function<bool(Slot)>& can_evict, Scan& scan) {
  while (queue(hand_) != kMain) advance_hand();  // ends: main_count_ > 0
  Slot s = hand_;
  if (freq(s) > 0) {
    set_freq(s, freq(s) - 1);
    advance_hand();
    scan.main_refused = 0;
    return std::nullopt;
  }
  ++scan.tries;
  if (can_evict(s)) return s;  // the hand rests on it until on_evict() moves it on
  advance_hand();
  ++scan.main_refused;
  return std::nullopt;
}

ReplacementPolicy::Slot S3FifoPolicy::small_oldest() {
  assert(small_live_ > 0);
  while (stale(ring_[ring_tail_]) > 0) {
    add_stale(ring_[ring_tail_], -1);
    ring_pop();
  }
  return ring_[ring_tail_];
}

ReplacementPolicy::Slot S3FifoPolicy::pop_small_oldest() {
  Slot s = small_oldest();
  ring_pop();
  --small_live_;
  return s;
}

void S3FifoPolicy::ring_pop() {
  ring_tail_ = ring_tail_ + 1 == ring_.size() ? 0 : ring_tail_ + 1;
  --ring_used_;
}

void S3FifoPolicy::ring_push(Slot slot) {
  // Live entries never exceed small_target_, so a full ring holds stale ones to drop.
  if (ring_used_ == ring_.size()) ring_compact();
  ring_[(ring_tail_ + ring_used_) % ring_.size()] = slot;
  ++ring_used_;
}

void S3FifoPolicy::ring_compact() {
  uint32_t kept = 0;
  for (uint32_t i = 0; i < ring_used_; ++i) {
    Slot s = ring_[(ring_tail_ + i) % ring_.size()];
    if (stale(s) > 0) {
      add_stale(s, -1);
    } else {
      ring_[(ring_tail_ + kept++) % ring_.size()] = s;
    }
  }
  ring_used_ = kept;
}

void S3FifoPolicy::leave_small_ring(Slot slot) {
  if (small_oldest() == slot) {
    ring_pop();
    return;
  }
  if (stale(slot) == kMaxStale) ring_compact();  // the 4-bit count is full: drop them now
  add_stale(slot, 1);
}

uint64_t S3FifoPolicy::memory_size() const {
  return state_.capacity() * sizeof(uint8_t) + ring_.capacity() * sizeof(Slot) +
         ghost_.memory_size();
}

void S3FifoPolicy::visit_counters(const CounterVisitor& visit) const {
  visit("ghost_hits", ghost_hits_);
  visit("small_evictions", small_evictions_);
  visit("main_evictions", main_evictions_);
  visit("promotions", promotions_);
  visit("small_overflows", small_overflows_);
}

}  // namespace tiercache
