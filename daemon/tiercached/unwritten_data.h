// UnwrittenData: how much write-back data a cache holds that its core does not have yet, read
// from the cache device alone (its metadata loaded through a WriteOverlayDevice, so nothing is
// written). tiercached adds it to its refusal when the core a cache was made for cannot be
// opened or another device stands in its place, so that nobody recreates the cache over data
// that exists nowhere else.
#pragma once

#include <cstdint>
#include <string>

#include "cachelib/common/epoll_event_loop.h"
#include "cachelib/common/status.h"

namespace tiercache {

struct UnwrittenData {
  uint64_t lines = 0;  // lines with dirty sectors
  uint64_t bytes = 0;  // their dirty sectors, in bytes
};

// Loads the metadata of the cache at `cache_path` read-only (on `loop`, waiting for it) and
// counts its dirty data. `buffered` opens the file without O_DIRECT. REQUIRES: not on `loop`.
Result<UnwrittenData> CountUnwrittenData(const std::string& cache_path, bool buffered,
                                         LoopThread& loop);

// `why` (the core's error) with what the cache holds for the core and what to do, e.g.
// "core /dev/sdb does not exist; /dev/sda2 holds 64 KiB of write-back data (16 lines) not yet on
// that core: ...". A count that failed is said as such.
Status ExplainRefusedCore(const Status& why, const std::string& cache_path,
                          const Result<UnwrittenData>& unwritten);

}  // namespace tiercache
