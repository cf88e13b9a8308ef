#include "policy/testing/policy_simulator.h"

namespace tiercache {

PolicySimulator::PolicySimulator(uint32_t capacity, std::unique_ptr<ReplacementPolicy> replacement,
                                 std::unique_ptr<AdmissionPolicy> admission)
    : capacity_(capacity),
      replacement_(std::move(replacement)),
      admission_(std::move(admission)),
      slot_block_(capacity, 0) {
  index_.reserve(capacity);
  for (uint32_t slot = capacity; slot > 0; --slot) free_.push_back(slot - 1);  // slot 0 first
}

bool PolicySimulator::access(uint64_t block) {
  ++accesses_;
  if (auto it = index_.find(block); it != index_.end()) {
    replacement_->on_hit(it->second);
    admission_->on_hit(block, false);
    return true;
  }
  ++misses_;
  const AdmissionQuery query{block, false, index_.size(), capacity_};
  ReplacementPolicy::Slot slot;
  const Admission admission = admission_->admit(query);
  if (!admission || !take_slot(&slot)) return false;
  slot_block_[slot] = block;
  index_.emplace(block, slot);
  replacement_->on_insert(slot, block);
  if (admission.warm) replacement_->on_hit(slot);  // as the engine does
  ++ssd_writes_;
  return false;
}

bool PolicySimulator::take_slot(ReplacementPolicy::Slot* slot) {
  if (!free_.empty()) {
    *slot = free_.back();
    free_.pop_back();
    return true;
  }
  auto victim = replacement_->pick_victim([](ReplacementPolicy::Slot) { return true; }, capacity_);
  if (!victim) return false;
  const uint64_t old = slot_block_[*victim];
  index_.erase(old);
  replacement_->on_evict(*victim, old);
  admission_->on_evict(old);
  ++evictions_;
  *slot = *victim;
  return true;
}

}  // namespace tiercache
