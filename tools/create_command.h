// `tiercache create`: formats an SSD as the cache of an HDD (IdentifyCore + MetadataStore::Format
// on FileDevices), refusing while a tiercached serves that cache, and with --force refusing to
// destroy dirty data unless --discard-dirty.
#pragma once

#include "cachelib/metadata/core_identity.h"
#include "cachelib/metadata/metadata_store.h"
#include "cachelib/metadata/superblock.h"
#include "tools/async_runner.h"
#include "tools/cli_options.h"
#include "tools/command_io.h"

namespace tiercache {

// Formats `ssd` for `core` and reads the new superblock back.
Result<LoadedSuperblock> FormatCache(AsyncRunner& runner, Device& ssd, const CoreIdentity& core,
                                     const FormatOptions& options);

// What `create --force` checks before it overwrites `ssd`: OK when it holds no tiercache
// (NotFound at load) or one without dirty data. Busy naming the dirty lines and bytes and how to
// write them back; when the cache cannot be loaded, its error (Corruption, NotSupported, ...)
// saying that --discard-dirty overwrites it anyway. Never writes to `ssd`.
Status CheckNoDirtyData(AsyncRunner& runner, Device& ssd);

int RunCreate(const CliOptions& options, CommandIo& io);

}  // namespace tiercache
