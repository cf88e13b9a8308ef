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

}  // namespace tiercache
