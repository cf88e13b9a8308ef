// The policies one shard runs (built from PolicyOptions by name, or only those a live change
// replaces), and how per-shard counters are
// summed for `tiercache stats`. Free functions; thread-compatible.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "cachelib/common/status.h"
#include "policy/admission/admission_policy.h"
#include "policy/admission/surge_board.h"
#include "policy/policy_options.h"
#include "policy/replacement/replacement_policy.h"

namespace tiercache {

class Shard;

struct ShardPolicies {
  std::unique_ptr<ReplacementPolicy> replacement;
  std::unique_ptr<AdmissionPolicy> admission;
};

// Policies for a shard of `lines` cache lines, whose admission judges surges on `surge` (the
// cache's SurgeBoard, this shard's slot); InvalidArgument for an unknown name.
Result<ShardPolicies> MakeShardPolicies(const PolicyOptions& options, uint32_t lines,
                                        SurgeSlot surge);

// For a live change from `current` to `next` (validated by the caller): the policies whose names
// differ, for a shard of `lines` lines; the others stay null (the shard keeps its own and what
// they learned).
Result<ShardPolicies> MakeChangedPolicies(const PolicyOptions& current, const PolicyOptions& next,
                                          uint32_t lines, SurgeSlot surge);

// Calls visit(name, sum over shards) for every counter `each` reports, in first-seen order.
void SumCounters(const std::vector<std::unique_ptr<Shard>>& shards,
                 const std::function<void(const Shard&, const CounterVisitor&)>& each,
                 const CounterVisitor& visit);

}  // namespace tiercache
