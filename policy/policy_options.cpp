#include "policy/policy_options.h"

#include "policy/admission/admission_options.h"
#include "policy/replacement/replacement_options.h"

namespace tiercache {

Status PolicyOptions::validate() const {
  TC_RETURN_IF_ERROR(AdmissionOptions{.name = admission}.validate());
  TC_RETURN_IF_ERROR(ReplacementOptions{.name = replacement}.validate());
  return sequential.validate();
}

PolicyOptions PolicyOverrides::apply(PolicyOptions base) const {
  if (admission) base.admission = *admission;
  if (replacement) base.replacement = *replacement;
  if (sequential) base.sequential = *sequential;
  return base;
}

}  // namespace tiercache
