#include "policy/admission/always_admit.h"

namespace tiercache {

bool AlwaysAdmit::admit(const AdmissionQuery&) {
  ++admitted_;
  return true;
}

void AlwaysAdmit::visit_counters(const CounterVisitor& visit) const {
  visit("admitted", admitted_);
  visit("refused", 0);
}

}  // namespace tiercache
