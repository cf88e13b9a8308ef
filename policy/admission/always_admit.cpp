#include "policy/admission/always_admit.h"

namespace tiercache {

Admission AlwaysAdmit::admit(const AdmissionQuery&) {
  ++admitted_;
  return {.admitted = true};
}

void AlwaysAdmit::visit_counters(const CounterVisitor& visit) const {
  visit("admitted", admitted_);
  visit("refused", 0);
}

}  // namespace tiercache
