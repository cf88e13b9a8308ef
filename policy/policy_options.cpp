#include "policy/policy_options.h"

#include "policy/admission/admission_options.h"
#include "policy/replacement/replacement_options.h"

namespace tiercache {

Status PolicyOptions::validate() const {
  TC_RETURN_IF_ERROR(admission_options().validate());
  TC_RETURN_IF_ERROR(ReplacementOptions{.name = replacement}.validate());
  return sequential.validate();
}

AdmissionOptions PolicyOptions::admission_options() const {
  return AdmissionOptions{.name = admission, .adaptive_knobs = adaptive_knobs};
}

PolicyOptions PolicyOverrides::apply(PolicyOptions base) const {
  if (admission) base.admission = *admission;
  if (replacement) base.replacement = *replacement;
  if (sequential) base.sequential = *sequential;
  if (!adaptive_knobs.empty()) base.adaptive_knobs = adaptive_knobs;
  return base;
}

}  // namespace tiercache
