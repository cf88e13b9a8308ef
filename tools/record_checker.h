// Consistency checks over the line records of an opened MetadataStore, beyond what loading
// verifies (checksums, superblock): record bounds, dirty-implies-valid, one cache line per core
// line. Used by `tiercache check`. Stateless function; thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cachelib/metadata/metadata_store.h"

namespace tiercache {

struct RecordReport {
  uint64_t lines_used = 0;     // records holding a core line
  uint64_t lines_dirty = 0;    // records with at least one dirty sector
  uint64_t valid_sectors = 0;
  uint64_t dirty_sectors = 0;
  uint64_t problem_count = 0;          // all problems found
  std::vector<std::string> problems;   // the first kMaxListedProblems, one sentence each
};

inline constexpr size_t kMaxListedProblems = 20;

RecordReport CheckRecords(const MetadataStore& store);

}  // namespace tiercache
