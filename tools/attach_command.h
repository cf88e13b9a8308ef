// `tiercache attach`: re-binds a cache to its core when the core's identity changed (a copied or
// restored image, a file that moved to another filesystem, a renumbered disk without a serial),
// never silently: the size must equal the recorded one and a sample of the blocks the cache holds
// clean must read the same on the core and the SSD; then the superblock's core fingerprint and
// path are rewritten (RebindCore). Stateless functions; run offline, under the cache's lock.
#pragma once

#include <cstdint>
#include <string>

#include "cachelib/device/device.h"
#include "cachelib/metadata/core_identity.h"
#include "tools/async_runner.h"
#include "tools/cli_options.h"
#include "tools/command_io.h"

namespace tiercache {

// Cache lines whose clean sectors are compared, spread evenly over the lines holding clean data.
inline constexpr uint64_t kAttachSampleLines = 64;

struct AttachReport {
  std::string previous_core;    // the path the superblock named
  uint64_t compared_lines = 0;  // lines of the sample
  uint64_t compared_bytes = 0;  // clean bytes read identical on both devices
  uint64_t dirty_lines = 0;     // dirty lines of the cache (written to this core from now on)
  bool unchanged = false;       // the superblock already named this core: nothing written
};

// Checks `core` (identified as `id`, opened as `core_dev`) against the cache on `ssd` and, if it
// matches, rewrites the superblock. Refuses (InvalidArgument) a size mismatch, any differing
// sampled block, and (unless `force`) a cache with dirty data but no clean data to compare.
// Errors of loading the cache as in LoadOffline. Writes only the superblock, only on success.
Result<AttachReport> AttachCore(AsyncRunner& runner, Device& ssd, Device& core_dev,
                                const CoreIdentity& id, bool force);

int RunAttach(const CliOptions& options, CommandIo& io);

}  // namespace tiercache
