// PolicyOptions: which admission and replacement policies a cache uses (by name) and their knobs.
// Carried by CacheOptions; `tiercache create`, `tiercached` and `tiercache-bench` set it from
// --admission / --replacement. Plain value; thread-compatible.
#pragma once

#include <string>

#include "cachelib/common/status.h"
#include "policy/sequential/sequential_options.h"

namespace tiercache {

struct PolicyOptions {
  // Admission policy: "always" (every miss is cached).
  std::string admission = "always";
  // Replacement policy: "lru".
  std::string replacement = "lru";
  // Sequential-stream bypass (cutoffs per direction, streams tracked).
  SequentialOptions sequential;
  // InvalidArgument naming an unknown policy.
  Status validate() const;
};

}  // namespace tiercache
