// The mode table (Open CAS cache_engine style): for each cache mode, its name and its write path.
// The read path is shared (read_path.cpp) and consults the mode itself.
#pragma once

#include "cachelib/engine/io_paths.h"

namespace tiercache {

struct ModeOps {
  const char* name;
  void (*write_segment)(Request&, const Segment&);
};

const ModeOps& OpsFor(CacheMode mode);

// The mode a read or write actually runs in (Open CAS ocf_resolve_effective_cache_mode): the
// cache's mode, or pass-through for a request of a sequential stream past its cutoff. Pass-through
// still serves dirty data from the SSD and updates or drops cached copies a write overlaps.
// `stream_bytes`, if given, receives what SequentialDetector::observe says of the stream;
// `stream_bypass`, if given, whether the request bypasses as part of such a stream.
CacheMode ResolveEffectiveMode(Engine& engine, CacheMode mode, uint64_t offset, uint64_t length,
                               bool is_write, uint64_t* stream_bytes = nullptr,
                               bool* stream_bypass = nullptr);

}  // namespace tiercache
