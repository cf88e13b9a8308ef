#include "cachelib/engine/policy_set.h"

#include <string>
#include <utility>

#include "cachelib/engine/shard.h"
#include "policy/admission/admission_factory.h"
#include "policy/replacement/replacement_factory.h"

namespace tiercache {

Result<ShardPolicies> MakeShardPolicies(const PolicyOptions& options, uint32_t lines,
                                        SurgeSlot surge) {
  TC_RETURN_IF_ERROR(options.validate());
  ShardPolicies p;
  auto replacement = MakeReplacementPolicy(ReplacementOptions{.name = options.replacement}, lines);
  if (!replacement.ok()) return replacement.status();
  p.replacement = std::move(replacement).value();
  auto admission = MakeAdmissionPolicy(options.admission_options(), lines, surge);
  if (!admission.ok()) return admission.status();
  p.admission = std::move(admission).value();
  return p;
}

Result<ShardPolicies> MakeChangedPolicies(const PolicyOptions& current, const PolicyOptions& next,
                                          uint32_t lines, SurgeSlot surge) {
  ShardPolicies p;
  if (next.replacement != current.replacement) {
    auto made = MakeReplacementPolicy(ReplacementOptions{.name = next.replacement}, lines);
    if (!made.ok()) return made.status();
    p.replacement = std::move(made).value();
  }
  if (next.admission != current.admission) {
    auto made = MakeAdmissionPolicy(next.admission_options(), lines, surge);
    if (!made.ok()) return made.status();
    p.admission = std::move(made).value();
  }
  return p;
}

void SumCounters(const std::vector<std::unique_ptr<Shard>>& shards,
                 const std::function<void(const Shard&, const CounterVisitor&)>& each,
                 const CounterVisitor& visit) {
  std::vector<std::pair<std::string, uint64_t>> sums;
  for (const auto& shard : shards) {
    std::lock_guard lock(shard->mu);
    each(*shard, [&](std::string_view name, uint64_t value) {
      for (auto& [n, v] : sums) {
        if (n == name) {
          v += value;
          return;
        }
      }
      sums.emplace_back(std::string(name), value);
    });
  }
  for (const auto& [name, value] : sums) visit(name, value);
}

}  // namespace tiercache
