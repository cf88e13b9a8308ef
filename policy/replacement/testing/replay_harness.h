// ReplayHarness: a tiny fully associative cache for behavioural tests of replacement policies: a
// block -> slot map and a free-slot list driving a ReplacementPolicy the way the engine does
// (insert into a free slot, else pick_victim + on_evict first). Test-only; borrows the policy;
// not thread-safe.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "policy/replacement/replacement_policy.h"

namespace tiercache {

class ReplayHarness {
 public:
  ReplayHarness(ReplacementPolicy& policy, uint32_t capacity)
      : policy_(policy), capacity_(capacity), block_of_(capacity) {
    // Popped from the back: slots are handed out as 0, 1, 2, ...
    for (uint32_t s = capacity; s > 0; --s) free_.push_back(s - 1);
  }

  // One request for `block`; true on a hit. A miss always inserts (evicting if full).
  bool access(uint64_t block) {
    auto it = slot_of_.find(block);
    if (it != slot_of_.end()) {
      ++hits_;
      policy_.on_hit(it->second);
      return true;
    }
    ++misses_;
    if (free_.empty() && !evict_one()) return false;
    uint32_t slot = free_.back();
    free_.pop_back();
    slot_of_[block] = slot;
    block_of_[slot] = block;
    policy_.on_insert(slot, block);
    return false;
  }

  // Drops `block` as a write or TRIM would (on_remove), if it is cached.
  void invalidate(uint64_t block) {
    auto it = slot_of_.find(block);
    if (it == slot_of_.end()) return;
    policy_.on_remove(it->second);
    free_.push_back(it->second);
    slot_of_.erase(it);
  }

  bool cached(uint64_t block) const { return slot_of_.count(block) > 0; }
  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }

 private:
  bool evict_one() {
    auto victim = policy_.pick_victim([](uint32_t) { return true; }, capacity_);
    if (!victim) {
      ADD_FAILURE() << policy_.name() << ": no victim in a full cache";
      return false;
    }
    uint64_t block = block_of_[*victim];
    EXPECT_EQ(slot_of_.erase(block), 1u) << policy_.name() << " proposed a free slot";
    policy_.on_evict(*victim, block);
    free_.push_back(*victim);
    return true;
  }

  ReplacementPolicy& policy_;
  uint32_t capacity_;
  std::vector<uint64_t> block_of_;
  std::vector<uint32_t> free_;
  std::unordered_map<uint64_t, uint32_t> slot_of_;
  uint64_t hits_ = 0, misses_ = 0;
};

}  // namespace tiercache
