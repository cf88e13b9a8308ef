#include "policy/admission/admission_factory.h"

#include <array>
#include <cassert>
#include <string>

#include "policy/admission/adaptive_admission.h"
#include "policy/admission/adaptive_tuning.h"
#include "policy/admission/always_admit.h"
#include "policy/admission/nhit_admission.h"

namespace tiercache {
namespace {

struct Maker {
  std::string_view name;
  bool refuses;  // whether the policy ever refuses a miss
  std::unique_ptr<AdmissionPolicy> (*make)(const AdmissionOptions&, uint32_t capacity, SurgeSlot);
};

constexpr std::array<Maker, 3> kMakers = {{
    {"always", false,
     [](const AdmissionOptions&, uint32_t, SurgeSlot) -> std::unique_ptr<AdmissionPolicy> {
       return std::make_unique<AlwaysAdmit>();
     }},
    {"nhit", true,
     [](const AdmissionOptions& o, uint32_t capacity,
        SurgeSlot) -> std::unique_ptr<AdmissionPolicy> {
       return std::make_unique<NhitAdmission>(capacity, o.nhit_threshold, o.nhit_trigger,
                                              o.nhit_window);
     }},
    {"adaptive", true,
     [](const AdmissionOptions& o, uint32_t capacity,
        SurgeSlot surge) -> std::unique_ptr<AdmissionPolicy> {
       AdaptiveAdmission::Params params;
       params.min_return = o.adaptive_min_return;
       params.window = o.adaptive_window;
       params.probe_interval = o.adaptive_probe_interval;
       [[maybe_unused]] const Status tuned = ApplyAdaptiveKnobs(o.adaptive_knobs, params);
       assert(tuned.ok());  // MakeAdmissionPolicy validated the options
       return std::make_unique<AdaptiveAdmission>(capacity, params, surge);
     }},
}};

}  // namespace

Result<std::unique_ptr<AdmissionPolicy>> MakeAdmissionPolicy(const AdmissionOptions& options,
                                                             uint32_t capacity_slots,
                                                             SurgeSlot surge) {
  TC_RETURN_IF_ERROR(options.validate());
  if (capacity_slots == 0) return Status::InvalidArgument("capacity_slots: must be >= 1");
  for (const Maker& maker : kMakers) {
    if (maker.name == options.name) return maker.make(options, capacity_slots, surge);
  }
  return Status::InvalidArgument("unknown admission policy '" + options.name + "'");  // unreachable
}

bool AdmissionRefusesMisses(std::string_view name) {
  for (const Maker& maker : kMakers) {
    if (maker.name == name) return maker.refuses;
  }
  return false;
}

std::vector<std::string_view> AdmissionPolicyNames() {
  std::vector<std::string_view> names;
  for (const Maker& maker : kMakers) names.push_back(maker.name);
  return names;
}

}  // namespace tiercache
