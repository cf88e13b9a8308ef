// BenchPolicies: the engine options the wt and wb setups run with (tiercache-bench --admission,
// --replacement, --seq-cutoff, --cleaning and its knobs): CacheOptions in virtual time, tiercached
// flags in real time, and one line for the reports' headers. Value type.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cachelib/engine/cache.h"
#include "policy/cleaning/cleaning_options.h"

namespace tiercache::bench {

struct BenchPolicies {
  std::string admission;                     // admission policy name; empty: engine default
  std::string replacement;                   // replacement policy name; empty: engine default
  std::optional<uint64_t> seq_cutoff_bytes;  // one cutoff for reads and writes; 0: bypass off
  std::string cleaning;                      // cleaning policy name; empty: engine default
  std::optional<CleaningOptions> cleaning_options;  // the cleaning knobs; unset: defaults

  // Whether any option was given (else the setups run the engine's defaults).
  bool any() const;
  // Puts the given options into `options`.
  void apply_to(CacheOptions* options) const;
  // InvalidArgument naming what the engine would refuse (a policy name, a cutoff), so that a
  // run stops before its first setup rather than at its wt rows.
  Status validate() const;
  // The same as tiercached flags: "--admission", "always", "--seq-cutoff", "0", ...
  std::vector<std::string> daemon_args() const;
  // "admission s3fifo, replacement default, seq cutoff 4194304 B, cleaning nop (dirty target 20%,
  // high 50%, max age 30 s, busy share 10%, idle after 1 s)"; the knobs only when given.
  std::string summary() const;
};

}  // namespace tiercache::bench
