// `tiercache check`: verifies a cache's on-SSD metadata offline without writing to the SSD
// (the device is opened read-only and MetadataStore::Open runs over a WriteOverlayDevice).
#pragma once

#include <memory>
#include <optional>

#include "cachelib/metadata/core_identity.h"
#include "cachelib/metadata/metadata_store.h"
#include "cachelib/metadata/offline_cache.h"
#include "cachelib/metadata/superblock.h"
#include "tools/async_runner.h"
#include "tools/cli_options.h"
#include "tools/command_io.h"
#include "tools/record_checker.h"

namespace tiercache {

struct CheckReport {
  LoadedSuperblock superblock;  // the copy that load picked
  SuperblockInfo info;          // as MetadataStore::Open reports it
  bool core_from_superblock = true;  // no --core: the recorded identity was used
  RecordReport records;
};

// Loads `ssd` as the daemon would, with `core` or else the identity recorded in the superblock.
// Errors are those of LoadSuperblock / MetadataStore::Open (NotFound, Corruption, NotSupported,
// InvalidArgument on a core mismatch). Never writes to `ssd`.
Result<OfflineCache> LoadOffline(AsyncRunner& runner, Device& ssd,
                                 const std::optional<CoreIdentity>& core);

// Loads the superblock and all records of `ssd` and checks them. Errors are those of
// LoadSuperblock / MetadataStore::Open (NotFound, Corruption, NotSupported, InvalidArgument on a
// core mismatch). Never writes to `ssd`.
Result<CheckReport> InspectCache(AsyncRunner& runner, Device& ssd,
                                 const std::optional<CoreIdentity>& core);

int RunCheck(const CliOptions& options, CommandIo& io);

}  // namespace tiercache
