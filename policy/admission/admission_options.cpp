#include "policy/admission/admission_options.h"

#include <algorithm>

#include "policy/admission/admission_factory.h"
#include "policy/admission/adaptive_tuning.h"

namespace tiercache {

Status AdmissionOptions::validate() const {
  const std::vector<std::string_view> names = AdmissionPolicyNames();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    std::string known;
    for (std::string_view n : names) known += (known.empty() ? "" : ", ") + std::string(n);
    return Status::InvalidArgument("unknown admission policy '" + name + "' (" + known + ")");
  }
  if (nhit_threshold == 0) return Status::InvalidArgument("nhit_threshold: must be >= 1");
  if (!(nhit_trigger >= 0.0 && nhit_trigger <= 1.0)) {
    return Status::InvalidArgument("nhit_trigger: must be in [0, 1]");
  }
  if (!(adaptive_min_return > 0.0 && adaptive_min_return <= 1.0)) {
    return Status::InvalidArgument("adaptive_min_return: must be in (0, 1]");
  }
  if (!(adaptive_window > 0.0 && adaptive_window <= 64.0)) {
    return Status::InvalidArgument("adaptive_window: must be in (0, 64]");
  }
  AdaptiveAdmission::Params tried;
  if (Status s = ApplyAdaptiveKnobs(adaptive_knobs, tried); !s.ok()) {
    return Status::InvalidArgument("adaptive_knobs: " + s.message());
  }
  return Status::Ok();
}

}  // namespace tiercache
