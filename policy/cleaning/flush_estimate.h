// EstimateFlushTime: how long writing `dirty_bytes` back to the core should take at
// `bytes_per_second` (the recent cleaning rate, or the core model's rate), for the flush ETA of
// `tiercache status`. Rounded up to the nanosecond; Nanos::max() when the rate is 0 (unknown) and
// there is something to write, or when the result does not fit. Pure function; thread-safe.
#pragma once

#include <cstdint>

#include "cachelib/common/clock.h"

namespace tiercache {

Nanos EstimateFlushTime(uint64_t dirty_bytes, uint64_t bytes_per_second);

}  // namespace tiercache
