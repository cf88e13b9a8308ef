#include "policy/admission/surge_board.h"

#include <algorithm>

namespace tiercache {

SurgeBoard::SurgeBoard(uint32_t slots)
    : count_(slots == 0 ? 1 : slots), slots_(std::make_unique<Slot[]>(count_)) {}

void SurgeBoard::publish(uint32_t slot, const Rates& rates) {
  // Relaxed: a reader wants a recent rate, not an ordering with anything else.
  slots_[slot].fast.store(rates.fast, std::memory_order_relaxed);
  slots_[slot].slow.store(rates.slow, std::memory_order_relaxed);
}

SurgeBoard::Rates SurgeBoard::mean() const {
  Rates sum;
  for (uint32_t i = 0; i < count_; ++i) {
    sum.fast += slots_[i].fast.load(std::memory_order_relaxed);
    sum.slow += slots_[i].slow.load(std::memory_order_relaxed);
  }
  return {.fast = sum.fast / count_, .slow = sum.slow / count_};
}

double SurgeBoard::add_evidence(double delta) {
  double now = evidence_.load(std::memory_order_relaxed);
  double next;
  do {
    next = std::max(0.0, now + delta);
  } while (!evidence_.compare_exchange_weak(now, next, std::memory_order_relaxed));
  return next;
}

}  // namespace tiercache
