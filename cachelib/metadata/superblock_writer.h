// Superblock updates after create, as docs/on-disk-format.md "Two copies" describes: the new
// superblock (sequence + 1) goes to the copy that does not hold the newest one, then the SSD is
// flushed, so a torn write leaves the previous superblock intact. Stateless functions; the caller
// makes sure no other superblock update runs at the same time (a store, or an offline tool
// holding the cache's InstanceLock).
#pragma once

#include <cstdint>

#include "cachelib/device/device.h"
#include "cachelib/metadata/superblock.h"

namespace tiercache {

// Encodes `next` into copy `copy` (0 or 1), writes it and flushes `ssd`.
// REQUIRES: next.core.path fits (format::kMaxCorePathBytes).
void WriteSuperblockCopy(Device& ssd, const Superblock& next, uint32_t copy, IoCallback done);

// Re-binds the cache to `core` (`tiercache attach`): `current` with its core identity replaced,
// written as the next superblock. InvalidArgument, before any write, if the path is too long.
void RebindCore(Device& ssd, const LoadedSuperblock& current, const CoreIdentity& core,
                IoCallback done);

}  // namespace tiercache
