// PolicySimulator: a tiny fully associative cache (block -> slot map, free list) driven by one
// ReplacementPolicy and one AdmissionPolicy exactly as the engine drives them, counting accesses,
// misses and SSD block writes (admissions). Owns both policies; not thread-safe. Testing only.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "policy/admission/admission_policy.h"
#include "policy/replacement/replacement_policy.h"
#include "policy/testing/cache_model.h"

namespace tiercache {

class PolicySimulator final : public CacheModel {
 public:
  PolicySimulator(uint32_t capacity, std::unique_ptr<ReplacementPolicy> replacement,
                  std::unique_ptr<AdmissionPolicy> admission);

  const char* name() const override { return replacement_->name(); }
  bool access(uint64_t block) override;
  uint64_t ssd_writes() const override { return ssd_writes_; }

  uint64_t accesses() const { return accesses_; }
  uint64_t misses() const { return misses_; }
  uint64_t evictions() const { return evictions_; }
  uint64_t used() const { return index_.size(); }
  const ReplacementPolicy& replacement() const { return *replacement_; }
  const AdmissionPolicy& admission() const { return *admission_; }

 private:
  // A slot for an admitted miss: a free one, else the replacement policy's victim.
  bool take_slot(ReplacementPolicy::Slot* slot);

  uint32_t capacity_;
  std::unique_ptr<ReplacementPolicy> replacement_;
  std::unique_ptr<AdmissionPolicy> admission_;
  std::unordered_map<uint64_t, ReplacementPolicy::Slot> index_;
  std::vector<uint64_t> slot_block_;
  std::vector<ReplacementPolicy::Slot> free_;
  uint64_t accesses_ = 0, misses_ = 0, evictions_ = 0, ssd_writes_ = 0;
};

}  // namespace tiercache
