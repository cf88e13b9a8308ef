// SimOptions: everything one `tiercache sim` run replays — traces, cache sizes, admission and
// replacement policies, mode, shards, sequential bypass — and the SimCases it expands to (every
// size x admission x replacement). Plain value; thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/sim/sim_case.h"
#include "bench/sim/sim_result.h"

namespace tiercache::bench {

struct SimOptions {
  // Traces to replay, each on its own. At least one; names must differ. No default.
  std::vector<SimTraceSpec> traces;
  // Cache sizes in data bytes (see SimCase::cache_bytes). At least one. No default.
  std::vector<uint64_t> cache_bytes;
  // Admission and replacement policy names. Default: the engine's create-time defaults.
  std::vector<std::string> admissions{PolicyOptions{}.admission};
  std::vector<std::string> replacements{PolicyOptions{}.replacement};
  // Cache mode for every case. Default: wt.
  CacheMode mode = CacheMode::kWriteThrough;
  // Engine shards; 1 is fully associative. Default: the engine's default (CacheOptions::shards).
  uint32_t shards = CacheOptions{}.shards;
  // Sequential bypass; unset keeps the create-time default (on, 4 MiB). Default: unset.
  std::optional<SequentialOptions> sequential;
  // Knobs of the adaptive admission policy, "KNOB=VALUE" (SimCase::adaptive_knobs). Default none.
  std::vector<std::string> adaptive_knobs;

  // InvalidArgument naming the bad field or value (unknown policies in the engine's words).
  Status validate() const;
  // Sizes ascending and without repeats, then admissions, then replacements (first-seen order).
  std::vector<SimCase> cases() const;
};

// "[NAME=]FORMAT:FILE", FORMAT one of blkparse, fio, msr; NAME defaults to the file name without
// directory and extension.
Result<SimTraceSpec> ParseSimTraceSpec(std::string_view text);

}  // namespace tiercache::bench
