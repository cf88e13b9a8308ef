// LruPolicy: textbook least-recently-used replacement over one shard's slots. The recency list is
// threaded through two arrays of 32-bit slot indexes (8 bytes per slot), so no call allocates.
// Not scan-resistant: kept as the reference point and for workloads that are pure recency.
// Not thread-safe (one per shard, under the shard lock).
#pragma once

#include <cstdint>
#include <vector>

#include "policy/replacement/replacement_policy.h"

namespace tiercache {

class LruPolicy final : public ReplacementPolicy {
 public:
  explicit LruPolicy(uint32_t capacity);

  const char* name() const override { return "lru"; }
  void on_insert(Slot slot, uint64_t block) override;
  void on_hit(Slot slot) override;
  void on_remove(Slot slot) override;
  std::optional<Slot> pick_victim(const std::function<bool(Slot)>& can_evict,
                                  uint32_t max_scan) override;
  void on_evict(Slot slot, uint64_t block) override { unlink(slot); }
  uint64_t memory_size() const override;

 private:
  static constexpr Slot kNone = ~Slot{0};
  bool linked(Slot slot) const { return prev_[slot] != kNone || head_ == slot; }
  void link_front(Slot slot);
  void unlink(Slot slot);

  std::vector<Slot> prev_, next_;  // kNone-terminated; prev_ of an unlinked slot is kNone
  Slot head_ = kNone;              // most recent
  Slot tail_ = kNone;              // least recent
};

}  // namespace tiercache
