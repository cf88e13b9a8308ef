// AdaptiveTuning: AdaptiveAdmission::Params by knob name ("margin=0.08"), so that the simulators
// (`tiercache sim --set`, policy_sim) try a variant of the default policy without a build. Knobs
// are named after the Params fields (surge.* as surge_*, recurring_params.* as recurring_*).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cachelib/common/status.h"
#include "policy/admission/adaptive_admission.h"

namespace tiercache {

// Sets the knob `assignment` names ("KNOB=VALUE", VALUE a number; flags take 0 or 1).
// InvalidArgument naming the assignment: no '=', an unknown knob (the message lists the known
// ones), a value that is not a number or is out of the knob's range. `params` is unchanged then.
Status ApplyAdaptiveKnob(std::string_view assignment, AdaptiveAdmission::Params& params);
// Every assignment in order; stops at the first bad one.
Status ApplyAdaptiveKnobs(const std::vector<std::string>& assignments,
                          AdaptiveAdmission::Params& params);
// The knob names, in the order of Params' fields.
std::vector<std::string_view> AdaptiveKnobNames();

}  // namespace tiercache
