// PolicyOptions: which admission and replacement policies a cache uses (by name) and their knobs.
// Carried by CacheOptions; `tiercache create`, `tiercached` and `tiercache-bench` set it from
// --admission / --replacement. Plain value; thread-compatible.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cachelib/common/status.h"
#include "policy/sequential/sequential_options.h"

namespace tiercache {

struct AdmissionOptions;

struct PolicyOptions {
  // Admission policy: "always" (every miss is cached), "nhit" or "adaptive" (policy/admission/).
  // Default: "adaptive" (writes the SSD for blocks that come back; docs/policies.md).
  std::string admission = "adaptive";
  // Replacement policy: "lru", "clock", "s3fifo", "sieve" or "epoch-lru" (policy/replacement/).
  // Default: "epoch-lru": LRU's order in half a byte per line; behind adaptive admission it
  // misses less than clock on the trace families and on the held-out shapes, and writes less
  // (docs/policies.md, "The defaults, and why").
  std::string replacement = "epoch-lru";
  // Sequential-stream bypass (cutoffs per direction, streams tracked).
  SequentialOptions sequential;
  // Knobs of the adaptive admission policy as "KNOB=VALUE" (policy/admission/adaptive_tuning.h):
  // the simulator's (`tiercache sim --set`), never recorded with a cache, and not changed live.
  // Default none.
  std::vector<std::string> adaptive_knobs;
  // InvalidArgument naming an unknown policy or a bad knob.
  Status validate() const;
  // What the admission factory is given.
  AdmissionOptions admission_options() const;
  bool operator==(const PolicyOptions&) const = default;
};

// Choices that replace recorded ones field by field (a daemon flag over what create recorded).
struct PolicyOverrides {
  std::optional<std::string> admission;
  std::optional<std::string> replacement;
  std::optional<SequentialOptions> sequential;
  // Replaces base's when not empty (the simulator's; never recorded).
  std::vector<std::string> adaptive_knobs;
  // `base` with every set field replaced.
  PolicyOptions apply(PolicyOptions base) const;
};

}  // namespace tiercache
