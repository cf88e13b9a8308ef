// SimCase: one point of a `tiercache sim` run — a cache size and the engine options to replay a
// trace with — and how it maps onto a real cache: the SSD size whose layout holds exactly
// cache_bytes of 4 KiB lines, the FormatOptions and the CacheOptions. Plain value; thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cachelib/engine/cache.h"
#include "cachelib/metadata/format.h"
#include "cachelib/metadata/metadata_store.h"

namespace tiercache::bench {

struct SimCase {
  static constexpr uint32_t kLineSize = 4096;

  // Bytes of cached data (lines x 4 KiB), metadata not included. A multiple of 4096 with at least
  // format::kMinLines lines. No default.
  uint64_t cache_bytes = 0;
  // Admission and replacement policy names (policy/). Default: the engine's create-time defaults.
  std::string admission = PolicyOptions{}.admission;
  std::string replacement = PolicyOptions{}.replacement;
  // Cache mode. Default: wt.
  CacheMode mode = CacheMode::kWriteThrough;
  // Engine shards (CacheOptions::shards); 1 is fully associative. Default: the engine's default.
  uint32_t shards = CacheOptions{}.shards;
  // Sequential bypass; unset keeps the create-time default. Default: unset.
  std::optional<SequentialOptions> sequential;
  // Knobs of the adaptive admission policy, "KNOB=VALUE" (PolicyOptions::adaptive_knobs); they
  // apply to the cases whose admission is adaptive. Default none.
  std::vector<std::string> adaptive_knobs;

  // InvalidArgument naming the bad field; unknown policy names get the engine's own message.
  Status validate() const;
  // This case's choices over the create-time policies (the knobs only for adaptive), and the
  // policies the engine will run: the create-time defaults with them.
  PolicyOverrides overrides() const;
  PolicyOptions policies() const;
  // True when admission and replacement are the engine's defaults and no knob is set ("default":
  // true in the JSON).
  bool is_default_policy() const;
  FormatOptions format_options() const;
  CacheOptions cache_options(EventLoop* background_loop) const;
  // "always/lru": the combination's name in reports.
  std::string combo() const { return admission + "/" + replacement; }
};

// The smallest SSD layout with cache_bytes / 4096 lines of 4 KiB. REQUIRES: a valid cache_bytes.
format::Layout SimSsdLayout(uint64_t cache_bytes);

}  // namespace tiercache::bench
