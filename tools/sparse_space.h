// Whether a cache file can run out of space after `create`: a sparse file whose holes are larger
// than its filesystem's free space fails SSD writes once that runs out (the cache then stops
// caching, health: failed). Block devices have no holes; they never get a warning.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cachelib/common/status.h"

namespace tiercache {

struct FileSpace {
  uint64_t size = 0;       // the file's length
  uint64_t allocated = 0;  // bytes its blocks take on the filesystem (st_blocks * 512)
  uint64_t free = 0;       // bytes an unprivileged writer may still allocate (f_bavail)
};

// The space of `path` if it is a regular file; nullopt for anything else (a block device has no
// holes). IoError naming the path when stat or statvfs fails.
Result<std::optional<FileSpace>> MeasureFileSpace(const std::string& path);

// The warning for `path` when its unallocated bytes exceed the free space, with the command that
// allocates it; nullopt when the file fits.
std::optional<std::string> SparseSpaceWarning(const std::string& path, const FileSpace& space);

// Allocates the first `bytes` of `path` if it is a regular file (the superblock, metadata pages
// and journal: a full filesystem may then stop a sparse cache's data writes, which only stops
// caching, but never its metadata persists, which every FLUSH waits for). NoSpace or IoError,
// naming the path and the size, when the filesystem has no room; OK for anything but a file, and
// where the filesystem cannot preallocate (FUSE, NFS: EOPNOTSUPP and the like).
Status AllocateMetadataRegion(const std::string& path, uint64_t bytes);

}  // namespace tiercache
