#include "policy/cleaning/cleaning_factory.h"

#include <string>

#include "policy/cleaning/dirty_target_policy.h"
#include "policy/cleaning/nop_cleaning_policy.h"

namespace tiercache {
namespace {

struct Entry {
  std::string_view name;
  std::unique_ptr<CleaningPolicy> (*make)(const CleaningOptions&);
};

constexpr Entry kPolicies[] = {
    {"target",
     [](const CleaningOptions& o) -> std::unique_ptr<CleaningPolicy> {
       return std::make_unique<DirtyTargetPolicy>(o);
     }},
    {"nop",
     [](const CleaningOptions& o) -> std::unique_ptr<CleaningPolicy> {
       return std::make_unique<NopCleaningPolicy>(o.idle_batch_blocks);
     }},
};

}  // namespace

Result<std::unique_ptr<CleaningPolicy>> MakeCleaningPolicy(std::string_view name,
                                                           const CleaningOptions& options) {
  TC_RETURN_IF_ERROR(options.validate());
  std::string known;
  for (const Entry& entry : kPolicies) {
    if (entry.name == name) return entry.make(options);
    known += (known.empty() ? "" : ", ") + std::string(entry.name);
  }
  return Status::InvalidArgument("unknown cleaning policy '" + std::string(name) +
                                 "' (known: " + known + ")");
}

}  // namespace tiercache
