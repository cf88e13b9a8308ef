// ReplacementPolicy: decides which cached block to evict when a slot is needed. Slots are the
// shard-local indexes [0, capacity) of 4 KiB SSD slots; the engine tells the policy about inserts,
// hits, removals and evictions, and asks it for victims; the engine decides whether a candidate may
// go (not dirty, not busy). One instance per engine shard; not thread-safe (the shard lock guards
// it). Policies never do I/O, never allocate per call on the hit path, and report their memory.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "policy/common/policy_counters.h"

namespace tiercache {

class ReplacementPolicy {
 public:
  using Slot = uint32_t;
  virtual ~ReplacementPolicy() = default;
  virtual const char* name() const = 0;
  // `slot` (free until now) holds core block `block` from now on.
  virtual void on_insert(Slot slot, uint64_t block) = 0;
  // A request touched the block cached in `slot`.
  virtual void on_hit(Slot slot) = 0;
  // The slot was freed for another reason than eviction (invalidated by a write, TRIM, error).
  virtual void on_remove(Slot slot) = 0;
  // Proposes the best victim among occupied slots for which can_evict(slot) is true, trying at
  // most `max_scan` candidates; nullopt when none qualifies. Does not remove it: the engine calls
  // on_evict() if it takes it. May reorder its queues (e.g. second chances) while it looks.
  virtual std::optional<Slot> pick_victim(const std::function<bool(Slot)>& can_evict,
                                          uint32_t max_scan) = 0;
  // The engine evicted `slot`, which held `block` (e.g. remember it in a ghost history).
  virtual void on_evict(Slot slot, uint64_t block) = 0;
  // Bytes of memory the policy holds (allocated capacity, not just what is in use).
  virtual uint64_t memory_size() const = 0;
  virtual void visit_counters(const CounterVisitor& visit) const {}
};

}  // namespace tiercache
