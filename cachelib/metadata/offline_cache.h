// OfflineCache: a cache's superblock and records loaded without writing to the SSD:
// MetadataStore::Open runs over a WriteOverlayDevice, which keeps the writes the load makes
// (marking the cache in use) in memory. For `tiercache check`/`create`/`attach` and for
// tiercached's count of the data a missing core is owed.
#pragma once

#include <functional>
#include <memory>

#include "cachelib/device/write_overlay_device.h"
#include "cachelib/metadata/core_identity.h"
#include "cachelib/metadata/metadata_store.h"
#include "cachelib/metadata/superblock.h"

namespace tiercache {

struct OfflineCache {
  LoadedSuperblock superblock;                 // the copy that load picked
  std::unique_ptr<WriteOverlayDevice> overlay;  // over the SSD
  std::unique_ptr<MetadataStore> store;         // uses *overlay: declared after it, freed first
};

// Opens the store of `ssd`, whose superblock `superblock` was read already, over a new overlay
// with `core` (the recorded identity to load as the daemon would). Errors are those of
// MetadataStore::Open. Never writes to `ssd`. Destroy the result on the loop that ran it.
void OpenOffline(Device& ssd, LoadedSuperblock superblock, const CoreIdentity& core,
                 std::function<void(Result<OfflineCache>)> done);

}  // namespace tiercache
