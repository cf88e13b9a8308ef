// AlwaysAdmit: every miss gets a slot (the behaviour before admission policies existed).
// Not thread-safe (one per shard).
#pragma once

#include "policy/admission/admission_policy.h"

namespace tiercache {

class AlwaysAdmit final : public AdmissionPolicy {
 public:
  const char* name() const override { return "always"; }
  void on_hit(uint64_t, bool) override {}
  Admission admit(const AdmissionQuery&) override;
  void on_evict(uint64_t) override {}
  uint64_t memory_size() const override { return 0; }
  void visit_counters(const CounterVisitor& visit) const override;

 private:
  uint64_t admitted_ = 0;
};

}  // namespace tiercache
