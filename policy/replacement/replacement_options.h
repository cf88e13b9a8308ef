// ReplacementOptions: which replacement policy each shard runs, and its parameters. A plain value
// type; thread-compatible.
#pragma once

#include <string>

#include "cachelib/common/status.h"

namespace tiercache {

struct ReplacementOptions {
  // Policy name, one of ReplacementPolicyNames(): "lru", "clock", "s3fifo", "sieve",
  // "epoch-lru". Default: "epoch-lru" (the engine's default, PolicyOptions).
  std::string name = "epoch-lru";
  // s3fifo only: fraction of a shard's slots given to the small (probationary) FIFO, in (0, 0.5].
  // Memory is 2 + 3.5 * share bytes per slot. Default: 0.1 (the S3-FIFO paper's choice).
  double small_queue_share = 0.1;

  // InvalidArgument naming the bad field, or OK.
  Status validate() const;
};

}  // namespace tiercache
