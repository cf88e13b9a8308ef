// Test-only: line records for the tools' tests that write metadata by hand (create --force,
// attach, check).
#pragma once

#include "cachelib/metadata/line_record.h"

namespace tiercache {

// A record for `core_line` whose first `valid_sectors` sectors are valid and first
// `dirty_sectors` dirty.
inline LineRecord Record(uint64_t core_line, uint32_t valid_sectors, uint32_t dirty_sectors) {
  LineRecord r;
  r.core_line = core_line;
  for (uint32_t s = 0; s < valid_sectors; ++s) r.valid.set(s);
  for (uint32_t s = 0; s < dirty_sectors; ++s) r.dirty.set(s);
  return r;
}

}  // namespace tiercache
