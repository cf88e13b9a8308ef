// Device access for the offline verbs (create, check, attach): opening a path as a FileDevice,
// reading the superblock area, and making sure no daemon serves a cache and that a cache is not
// its own core. Stateless free functions; thread-safe.
#pragma once

#include <memory>
#include <string>

#include "cachelib/device/device.h"
#include "cachelib/device/file_device.h"
#include "cachelib/metadata/core_identity.h"
#include "cachelib/metadata/superblock.h"
#include "tools/async_runner.h"

namespace tiercache {

// Busy when a daemon answers on the control socket `control` (empty: the default one of `cache`).
Status CheckNotServed(const std::string& cache, const std::string& control);

// InvalidArgument when `cache` is the device `core` (at `core_path`) identifies.
Status CheckDistinct(const std::string& cache, const std::string& core_path,
                     const CoreIdentity& core);

// Opens `path` with O_DIRECT, or buffered where the filesystem refuses O_DIRECT; a block device
// opened for writing is opened exclusively (FileDeviceOptions::exclusive).
Result<std::unique_ptr<FileDevice>> OpenToolDevice(const std::string& path, bool read_only);

// Reads the 8 KiB superblock area of `ssd` and picks the newest valid copy (LoadSuperblock).
Result<LoadedSuperblock> ReadSuperblock(AsyncRunner& runner, Device& ssd);

// Whether the first format::kMetadataProbeBytes after the superblock area hold metadata blocks
// (format::HoldsMetadataBlocks): a cache whose superblock is gone.
Result<bool> HoldsOrphanMetadata(AsyncRunner& runner, Device& ssd);

}  // namespace tiercache
