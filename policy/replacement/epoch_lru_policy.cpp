#include "policy/replacement/epoch_lru_policy.h"

#include <algorithm>
#include <cassert>

namespace tiercache {

EpochLruPolicy::EpochLruPolicy(uint32_t capacity)
    : capacity_(capacity),
      per_epoch_(std::max(1u, capacity / kEpochsPerTurnover)),
      stamps_((uint64_t{capacity} + 1) / 2, 0) {
  assert(capacity > 0);
}

void EpochLruPolicy::set_stamp(Slot slot, uint32_t value) {
  uint8_t& byte = stamps_[slot / 2];
  const int shift = slot % 2 * 4;
  byte = static_cast<uint8_t>((byte & ~(0xF << shift)) | (value << shift));
}

void EpochLruPolicy::restamp(Slot slot, uint32_t ring) {
  --held_[stamp(slot) - 1];
  set_stamp(slot, ring + 1);
  ++held_[ring];
}

void EpochLruPolicy::skip_empty() {
  while (span_ > 0 && held_[oldest_ring_] == 0) {
    oldest_ring_ = Next(oldest_ring_);
    --span_;
  }
}

std::optional<uint32_t> EpochLruPolicy::age(Slot slot) const {
  const uint32_t s = stamp(slot);
  if (s == 0) return std::nullopt;
  return (newest_ring_ + kRing - (s - 1)) % kRing;
}

void EpochLruPolicy::on_insert(Slot slot, uint64_t) {
  assert(slot < capacity_ && stamp(slot) == 0);
  if (++inserted_ >= per_epoch_) {
    inserted_ = 0;
    skip_empty();
    if (span_ + 1 < kRing) {
      newest_ring_ = Next(newest_ring_);
      ++span_;
    }
  }
  // One epoch older than the newest, unless that one is no longer held.
  const uint32_t ring =
      span_ >= kNewcomerAge ? (newest_ring_ + kRing - kNewcomerAge) % kRing : oldest_ring_;
  set_stamp(slot, ring + 1);
  ++held_[ring];
  ++count_;
}

void EpochLruPolicy::on_hit(Slot slot) {
  if (stamp(slot) != 0) restamp(slot, newest_ring_);
}

void EpochLruPolicy::vacate(Slot slot) {
  const uint32_t s = stamp(slot);
  if (s == 0) return;
  --held_[s - 1];
  set_stamp(slot, 0);
  --count_;
  if (hand_ == slot) advance();
}

std::optional<ReplacementPolicy::Slot> EpochLruPolicy::pick_victim(
    const std::function<bool(Slot)>& can_evict, uint32_t max_scan) {
  // A refused candidate is stamped with the newest epoch, so the older ones empty and each block
  // is tried at most twice: `passed` counts slots the hand went by since it last restamped one,
  // and a full turn of them means every block left is in the newest epoch and was refused.
  uint32_t tries = 0, passed = 0;
  skip_empty();
  while (count_ > 0 && tries < max_scan && passed < capacity_) {
    const Slot s = hand_;
    if (stamp(s) == oldest_ring_ + 1) {
      ++tries;
      if (can_evict(s)) return s;
      if (span_ > 0) {
        restamp(s, newest_ring_);
        skip_empty();
        passed = 0;
        advance();
        continue;
      }
    }
    ++passed;
    advance();
  }
  return std::nullopt;
}

uint64_t EpochLruPolicy::memory_size() const { return stamps_.capacity(); }

}  // namespace tiercache
