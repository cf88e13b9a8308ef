// CoreIdentity: what the superblock records about the HDD ("core") so that opening a cache with the
// wrong or resized HDD is refused. Computed from the path, never from the HDD's contents (the cache
// writes those), so it is stable across restarts of the same device.
#pragma once

#include <cstdint>
#include <string>

#include "cachelib/common/status.h"

namespace tiercache {

struct CoreIdentity {
  std::string path;          // as given at create time (informational; may change)
  uint64_t size = 0;         // bytes; must match exactly
  uint64_t fingerprint = 0;  // xxh64 of stable device identity (see IdentifyCore)

  bool operator==(const CoreIdentity&) const = default;
};

// Identifies the file or block device at `path`: size from fstat / BLKGETSIZE64; fingerprint from
// the block device's serial/WWID in sysfs when available, else from (st_dev, st_ino) for files.
Result<CoreIdentity> IdentifyCore(const std::string& path);

// Whether `path` is the device `id` identifies (same fingerprint and size): a cache device given
// as its own core. False when `path` cannot be identified (opening it reports why).
bool IsSameDevice(const std::string& path, const CoreIdentity& id);

}  // namespace tiercache
