#include "policy/cleaning/flush_estimate.h"

namespace tiercache {

Nanos EstimateFlushTime(uint64_t dirty_bytes, uint64_t bytes_per_second) {
  if (dirty_bytes == 0) return Nanos(0);
  if (bytes_per_second == 0) return Nanos::max();
  // 128-bit: dirty_bytes * 1e9 overflows 64 bits from about 18 GB.
  unsigned __int128 ns = (static_cast<unsigned __int128>(dirty_bytes) * 1'000'000'000 +
                          bytes_per_second - 1) / bytes_per_second;
  if (ns > static_cast<unsigned __int128>(Nanos::max().count())) return Nanos::max();
  return Nanos(static_cast<int64_t>(ns));
}

}  // namespace tiercache
