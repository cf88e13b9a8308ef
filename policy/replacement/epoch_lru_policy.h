// EpochLruPolicy: LRU to a tenth of a turnover in half a byte per slot. Time is counted in epochs
// of capacity / 10 insertions; each slot holds the epoch of its block's last use (a new block is
// stamped one epoch older, so a block used again outlives one used once), and a hand evicts, in
// slot order, blocks of the oldest epoch still held. Not thread-safe (one per shard, under the
// shard lock).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "policy/replacement/replacement_policy.h"

namespace tiercache {

// CLOCK orders blocks by passes of its hand, which on LRU's own shapes (an LRU stack model) keeps
// it 0.002 above LRU at any number of passes; stamps of insertion epochs order them as LRU does
// (docs/policy-replacement.md, "Epochs of insertions"). A block proposed and refused (dirty, busy)
// is stamped with the newest epoch, as if used now, so the oldest epoch empties. Stamps are kept
// modulo 15: the epoch count waits while 15 epochs are held, which only blocks that are never
// evicted (no victim asked for while slots are freed) can cause.
class EpochLruPolicy final : public ReplacementPolicy {
 public:
  static constexpr uint32_t kEpochsPerTurnover = 10;  // epochs per `capacity` insertions
  static constexpr uint32_t kNewcomerAge = 1;         // epochs a new block is stamped older

  explicit EpochLruPolicy(uint32_t capacity);

  const char* name() const override { return "epoch-lru"; }
  void on_insert(Slot slot, uint64_t block) override;
  void on_hit(Slot slot) override;
  void on_remove(Slot slot) override { vacate(slot); }
  std::optional<Slot> pick_victim(const std::function<bool(Slot)>& can_evict,
                                  uint32_t max_scan) override;
  void on_evict(Slot slot, uint64_t) override { vacate(slot); }
  uint64_t memory_size() const override;

  Slot hand() const { return hand_; }
  // Epochs between `slot`'s stamp and the newest epoch (0: stamped now); nullopt when free.
  std::optional<uint32_t> age(Slot slot) const;
  // Epochs from the oldest one a block holds to the newest, both counted (1-15).
  uint32_t epochs_held() const { return span_ + 1; }

 private:
  static constexpr uint32_t kRing = 15;  // stamps 1-15 hold epoch % 15 + 1; 0 = free

  static uint32_t Next(uint32_t ring) { return ring + 1 == kRing ? 0 : ring + 1; }
  uint32_t stamp(Slot slot) const { return (stamps_[slot / 2] >> (slot % 2 * 4)) & 0xF; }
  void set_stamp(Slot slot, uint32_t value);
  // Stamps `slot` (occupied) with the epoch at `ring`, counting it there.
  void restamp(Slot slot, uint32_t ring);
  void vacate(Slot slot);
  // Moves the oldest epoch past epochs that no block holds any more.
  void skip_empty();
  void advance() { hand_ = hand_ + 1 == capacity_ ? 0 : hand_ + 1; }

  uint32_t capacity_;
  uint32_t per_epoch_;      // insertions per epoch
  uint32_t inserted_ = 0;   // insertions in the current epoch
  uint32_t count_ = 0;      // occupied slots
  // The newest epoch and the oldest one a block may hold, modulo kRing, and how many epochs
  // lie between them.
  uint32_t newest_ring_ = 0, oldest_ring_ = 0, span_ = 0;
  Slot hand_ = 0;
  std::array<uint32_t, kRing> held_{};  // blocks per epoch, by epoch modulo kRing
  std::vector<uint8_t> stamps_;         // two slots per byte
};

}  // namespace tiercache
