#include "policy/replacement/replacement_factory.h"

#include "policy/replacement/clock_policy.h"
#include "policy/replacement/epoch_lru_policy.h"
#include "policy/replacement/lru_policy.h"
#include "policy/replacement/s3fifo_policy.h"
#include "policy/replacement/sieve_policy.h"

namespace tiercache {
namespace {

using Maker = std::unique_ptr<ReplacementPolicy> (*)(const ReplacementOptions&, uint32_t);

template <typename Policy>
std::unique_ptr<ReplacementPolicy> MakeUntuned(const ReplacementOptions&, uint32_t capacity) {
  return std::make_unique<Policy>(capacity);
}

std::unique_ptr<ReplacementPolicy> MakeS3Fifo(const ReplacementOptions& options,
                                              uint32_t capacity) {
  return std::make_unique<S3FifoPolicy>(capacity, options.small_queue_share);
}

struct PolicyEntry {
  std::string_view name;
  Maker make;
};

// One entry per policy; validate() and its error message list them in this order.
constexpr PolicyEntry kPolicies[] = {
    {"lru", MakeUntuned<LruPolicy>},
    {"clock", MakeUntuned<ClockPolicy>},
    {"s3fifo", MakeS3Fifo},
    {"sieve", MakeUntuned<SievePolicy>},
    {"epoch-lru", MakeUntuned<EpochLruPolicy>},
};

}  // namespace

Result<std::unique_ptr<ReplacementPolicy>> MakeReplacementPolicy(const ReplacementOptions& options,
                                                                 uint32_t capacity_slots) {
  TC_RETURN_IF_ERROR(options.validate());
  if (capacity_slots == 0) return Status::InvalidArgument("capacity_slots must be > 0");
  for (const PolicyEntry& entry : kPolicies) {
    if (entry.name == options.name) return entry.make(options, capacity_slots);
  }
  return Status::InvalidArgument("unreachable: validated name has no table entry");
}

std::vector<std::string_view> ReplacementPolicyNames() {
  std::vector<std::string_view> names;
  for (const PolicyEntry& entry : kPolicies) names.push_back(entry.name);
  return names;
}

}  // namespace tiercache
