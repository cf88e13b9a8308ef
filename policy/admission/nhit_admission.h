// NhitAdmission: Open CAS "nhit" promotion. Once the shard is filled past a trigger, a missed block
// gets a slot only on its N-th miss within a window of recent misses; below the trigger every miss
// is admitted. Miss counts live in a FrequencySketch aged every `window` misses (at most 1 byte
// per window entry). Owns the sketch; not thread-safe (one per shard, under the shard lock).
#pragma once

#include <cstdint>

#include "policy/admission/admission_policy.h"
#include "policy/common/frequency_sketch.h"

namespace tiercache {

class NhitAdmission final : public AdmissionPolicy {
 public:
  // `threshold`: misses of a block that earn it a slot (>= 1). `trigger`: fraction of slots in use
  // from which the threshold applies, in [0, 1]. `window`: misses counted before counts are halved
  // (0 = `capacity`).
  NhitAdmission(uint32_t capacity, uint32_t threshold, double trigger, uint32_t window = 0);

  const char* name() const override { return "nhit"; }
  void on_hit(uint64_t, bool) override {}
  Admission admit(const AdmissionQuery& query) override;
  void on_evict(uint64_t) override {}
  uint64_t memory_size() const override { return misses_.memory_size(); }
  void visit_counters(const CounterVisitor& visit) const override;

 private:
  uint32_t threshold_;
  double trigger_;
  FrequencySketch misses_;  // misses per block, halved every `window` misses
  uint64_t admitted_ = 0, refused_ = 0;
};

}  // namespace tiercache
