// SequentialOptions: when a long sequential stream stops being cached and goes straight to the
// core (Open CAS "sequential cutoff", bcache "sequential_cutoff"): a backup or a large copy would
// otherwise flush the working set out of the SSD. Plain value type; thread-compatible.
#pragma once

#include <cstdint>

#include "cachelib/common/status.h"

namespace tiercache {

struct SequentialOptions {
  // Detect sequential streams and bypass them past the cutoff; off caches every request.
  // Default: on.
  bool enabled = true;
  // Bytes of a read stream that are still cached; the stream's later reads bypass the cache.
  // Bytes, a multiple of 4096 and >= 4096 when enabled. Default: 4 MiB.
  uint64_t read_cutoff_bytes = uint64_t{4} << 20;
  // The same for write streams. Bytes, a multiple of 4096 and >= 4096 when enabled.
  // Default: 4 MiB.
  uint64_t write_cutoff_bytes = uint64_t{4} << 20;
  // Streams tracked per direction (reads and writes each); a new stream replaces the least
  // recently continued one. Count, in [1, 4096]. Default: 64.
  uint32_t streams = 64;

  // InvalidArgument naming the first bad field.
  Status validate() const;
  bool operator==(const SequentialOptions&) const = default;
};

}  // namespace tiercache
