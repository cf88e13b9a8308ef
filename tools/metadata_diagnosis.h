// `tiercache check` after a refused load: re-reads the metadata region page by page with the load
// rules (cachelib/metadata/metadata_scan.h) and explains each page the load refuses: which lines,
// what its older committed copy holds, what a salvage would lose. Reads only; never writes.
#pragma once

#include <string>
#include <vector>

#include "cachelib/device/device.h"
#include "cachelib/metadata/superblock.h"
#include "tools/async_runner.h"

namespace tiercache {

struct MetadataDiagnosis {
  uint64_t pages_refused = 0;
  std::vector<std::string> findings;  // the first kMaxFindings, one paragraph each
};

inline constexpr size_t kMaxFindings = 20;

Result<MetadataDiagnosis> DiagnoseMetadata(AsyncRunner& runner, Device& ssd, const Superblock& sb);

}  // namespace tiercache
