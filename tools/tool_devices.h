// Device access for the offline verbs (create, check): opening a path as a FileDevice and reading
// the superblock area. Stateless free functions; thread-safe.
#pragma once

#include <memory>
#include <string>

#include "cachelib/device/device.h"
#include "cachelib/device/file_device.h"
#include "cachelib/metadata/superblock.h"
#include "tools/async_runner.h"

namespace tiercache {

// Opens `path` with O_DIRECT, or buffered where the filesystem refuses O_DIRECT.
Result<std::unique_ptr<FileDevice>> OpenToolDevice(const std::string& path, bool read_only);

// Reads the 8 KiB superblock area of `ssd` and picks the newest valid copy (LoadSuperblock).
Result<LoadedSuperblock> ReadSuperblock(AsyncRunner& runner, Device& ssd);

}  // namespace tiercache
