#include "policy/policy_options.h"

#include "policy/replacement/replacement_options.h"

namespace tiercache {

Status PolicyOptions::validate() const {
  if (admission != "always") {
    return Status::InvalidArgument("unknown admission policy '" + admission + "' (always)");
  }
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
