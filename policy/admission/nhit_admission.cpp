#include "policy/admission/nhit_admission.h"

namespace tiercache {

NhitAdmission::NhitAdmission(uint32_t capacity, uint32_t threshold, double trigger, uint32_t window)
    : threshold_(threshold),
      trigger_(trigger),
      misses_(window != 0 ? window : capacity, window != 0 ? window : capacity) {}

Admission NhitAdmission::admit(const AdmissionQuery& query) {
  misses_.increment(query.block);
  const bool below_trigger =
      static_cast<double>(query.used) < trigger_ * static_cast<double>(query.capacity);
  if (below_trigger || misses_.estimate(query.block) >= threshold_) {
    ++admitted_;
    return {.admitted = true};
  }
  ++refused_;
  return {};
}

void NhitAdmission::visit_counters(const CounterVisitor& visit) const {
  visit("admitted", admitted_);
  visit("refused", refused_);
}

}  // namespace tiercache
