// MakeCleaningPolicy: builds a cleaning policy by name ("target", the default, or "nop") from
// validated options, for tiercached --cleaning and the benchmarks. Stateless.
#pragma once

#include <memory>
#include <string_view>

#include "cachelib/common/status.h"
#include "policy/cleaning/cleaning_options.h"
#include "policy/cleaning/cleaning_policy.h"

namespace tiercache {

inline constexpr std::string_view kDefaultCleaningPolicy = "target";

// InvalidArgument for an unknown name (the message lists the known ones) or invalid options.
Result<std::unique_ptr<CleaningPolicy>> MakeCleaningPolicy(std::string_view name,
                                                           const CleaningOptions& options);

}  // namespace tiercache
