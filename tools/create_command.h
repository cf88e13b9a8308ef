// `tiercache create`: formats an SSD as the cache of an HDD (IdentifyCore + MetadataStore::Format
// on FileDevices), refusing while a tiercached serves that cache.
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

int RunCreate(const CliOptions& options, CommandIo& io);

}  // namespace tiercache
