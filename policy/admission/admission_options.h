// AdmissionOptions: which admission policy a shard runs and its knobs, as configured by the user
// (tiercache create/config). Plain value type; thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cachelib/common/status.h"

namespace tiercache {

struct AdmissionOptions {
  // Policy name: "always", "nhit" or "adaptive". Default "adaptive".
  std::string name = "adaptive";
  // nhit: misses of a block within the window that earn it a slot, >= 1. Default 3.
  uint32_t nhit_threshold = 3;
  // nhit: fraction of the shard's slots in use from which nhit filters, in [0, 1]. Default 0.8.
  double nhit_trigger = 0.8;
  // nhit: misses counted before counts are halved (the window of recent misses), in misses;
  // 0 = the shard's slot count. Default 0.
  uint32_t nhit_window = 0;
  // adaptive: a frequency level is admitted when at least this share of its misses come back
  // within adaptive_window; in (0, 1]. Default 0.1.
  double adaptive_min_return = 0.1;
  // adaptive: "come back soon" = within this many shard capacities of accesses, > 0. Default 1.
  double adaptive_window = 1.0;
  // adaptive: one refused miss in this many is admitted anyway to keep measuring what evictions
  // cost; 0 = never. Default 256 (64 until 2026-12-05).
  uint32_t adaptive_probe_interval = 256;
  // adaptive: further knobs as "KNOB=VALUE" (AdaptiveTuning), applied after the three above; for
  // the simulators (`tiercache sim --set`), not recorded with a cache. Default none.
  std::vector<std::string> adaptive_knobs;

  // InvalidArgument naming the first bad field; OK otherwise.
  Status validate() const;
};

}  // namespace tiercache
