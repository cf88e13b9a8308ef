// `tiercache check`: verifies a cache's on-SSD metadata offline without writing to the SSD
// (the device is opened read-only and MetadataStore::Open runs over a WriteOverlayDevice).
#pragma once

#include <memory>
#include <optional>

#include "cachelib/metadata/core_identity.h"
#include "cachelib/metadata/metadata_store.h"
#include "cachelib/metadata/superblock.h"
#include "tools/async_runner.h"
#include "tools/cli_options.h"
#include "tools/command_io.h"
#include "tools/record_checker.h"
#include "cachelib/device/write_overlay_device.h"

namespace tiercache {

struct CheckReport {
  LoadedSuperblock superblock;  // the copy that load picked
  SuperblockInfo info;          // as MetadataStore::Open reports it
  bool core_from_superblock = true;  // no --core: the recorded identity was used
  RecordReport records;
};

// A cache's superblock and records, loaded without writing to the SSD: MetadataStore::Open runs
// over a WriteOverlayDevice, which keeps the writes the load makes (marking it in use) in memory.
struct OfflineCache {
  LoadedSuperblock superblock;                 // the copy that load picked
  std::unique_ptr<WriteOverlayDevice> overlay;  // over the SSD
  std::unique_ptr<MetadataStore> store;         // uses *overlay: declared after it, freed first
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
