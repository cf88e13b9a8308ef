// MakeReplacementPolicy: builds the replacement policy ReplacementOptions names, one instance per
// engine shard. Free functions over a constant table; thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "cachelib/common/status.h"
#include "policy/replacement/replacement_options.h"
#include "policy/replacement/replacement_policy.h"

namespace tiercache {

// A policy for a shard of `capacity_slots` slots; InvalidArgument if the options do not
// validate or capacity_slots is 0.
Result<std::unique_ptr<ReplacementPolicy>> MakeReplacementPolicy(const ReplacementOptions& options,
                                                                 uint32_t capacity_slots);

// The accepted names, in the order the error message lists them: lru, clock, s3fifo, sieve,
// epoch-lru.
std::vector<std::string_view> ReplacementPolicyNames();

}  // namespace tiercache
