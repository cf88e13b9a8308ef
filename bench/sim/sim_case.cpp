#include "bench/sim/sim_case.h"

#include <cassert>

namespace tiercache::bench {

Status SimCase::validate() const {
  if (cache_bytes % kLineSize != 0) {
    return Status::InvalidArgument("cache size " + std::to_string(cache_bytes) +
                                   " is not a multiple of 4096 bytes");
  }
  if (cache_bytes / kLineSize < format::kMinLines) {
    return Status::InvalidArgument("cache size " + std::to_string(cache_bytes) +
                                   " is below the minimum of " +
                                   std::to_string(format::kMinLines * kLineSize) + " bytes (" +
                                   std::to_string(format::kMinLines) + " lines)");
  }
  if (shards == 0) return Status::InvalidArgument("shards must be >= 1");
  return policies().validate();
}

PolicyOverrides SimCase::overrides() const {
  PolicyOverrides o;
  o.admission = admission;
  o.replacement = replacement;
  o.sequential = sequential;
  if (admission == "adaptive") o.adaptive_knobs = adaptive_knobs;
  return o;
}

PolicyOptions SimCase::policies() const { return overrides().apply(PolicyOptions{}); }

bool SimCase::is_default_policy() const {
  const PolicyOptions defaults;
  return admission == defaults.admission && replacement == defaults.replacement &&
         policies().adaptive_knobs.empty();
}

FormatOptions SimCase::format_options() const {
  FormatOptions f;
  f.line_size = kLineSize;
  f.mode = mode;
  return f;  // create-time default policies; the case's choices come in as overrides
}

CacheOptions SimCase::cache_options(EventLoop* background_loop) const {
  CacheOptions o;
  o.background_loop = background_loop;
  o.shards = shards;
  o.policies = overrides();
  // The simulator measures policies, not crash recovery: no trust rounds, so no line is kept in
  // reserve for them (Shard) and the cache holds exactly cache_bytes of data.
  o.trust_interval = Nanos(0);
  return o;
}

format::Layout SimSsdLayout(uint64_t cache_bytes) {
  const uint64_t lines = cache_bytes / SimCase::kLineSize;
  const uint64_t ssd_bytes = format::LayoutFor(SimCase::kLineSize, lines).required_size();
  format::Layout layout = format::LayoutForSsd(ssd_bytes, SimCase::kLineSize);
  assert(layout.line_count == lines);
  return layout;
}

}  // namespace tiercache::bench
