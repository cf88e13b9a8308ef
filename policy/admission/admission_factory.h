// MakeAdmissionPolicy: builds the admission policy AdmissionOptions names, sized for one shard.
// Returns an owned policy (one per shard); the functions themselves are thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "cachelib/common/status.h"
#include "policy/admission/admission_options.h"
#include "policy/admission/admission_policy.h"
#include "policy/admission/surge_board.h"

namespace tiercache {

// InvalidArgument for an unknown name or bad options; `capacity_slots` is the shard's slot count,
// `surge` the cache's SurgeBoard slot for this shard (adaptive judges surges there; none: alone).
Result<std::unique_ptr<AdmissionPolicy>> MakeAdmissionPolicy(const AdmissionOptions& options,
                                                             uint32_t capacity_slots,
                                                             SurgeSlot surge = {});
// Whether the named policy refuses misses it judges unlikely to come back (false for `always`
// and for unknown names): the engine hands it more of the streams read again.
bool AdmissionRefusesMisses(std::string_view name);
// Every name MakeAdmissionPolicy accepts: always, nhit, adaptive.
std::vector<std::string_view> AdmissionPolicyNames();

}  // namespace tiercache
