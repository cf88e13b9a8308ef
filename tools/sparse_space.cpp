#include "tools/sparse_space.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "cachelib/common/size_parser.h"

namespace tiercache {

Result<std::optional<FileSpace>> MeasureFileSpace(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    return Status::IoError("stat " + path + ": " + std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) return std::optional<FileSpace>();
  struct statvfs fs {};
  if (::statvfs(path.c_str(), &fs) != 0) {
    return Status::IoError("statvfs " + path + ": " + std::strerror(errno));
  }
  FileSpace space;
  space.size = uint64_t(st.st_size);
  space.allocated = uint64_t(st.st_blocks) * 512;
  space.free = uint64_t(fs.f_bavail) * fs.f_frsize;
  return std::optional<FileSpace>(space);
}

Status AllocateMetadataRegion(const std::string& path, uint64_t bytes) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return Status::FromErrno(errno, "stat " + path);
  if (!S_ISREG(st.st_mode) || bytes == 0) return Status::Ok();
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return Status::FromErrno(errno, "open " + path);
  const int err = ::fallocate(fd, 0, 0, off_t(bytes)) == 0 ? 0 : errno;
  ::close(fd);
  // Only a lack of room is an error: a file system that cannot preallocate (FUSE, NFS) is used as
  // it is, as before.
  if (err != ENOSPC && err != EDQUOT) return Status::Ok();
  return Status::FromErrno(err, "cannot allocate the metadata region of " + path + " (" +
                                    FormatSize(bytes) + ") on its filesystem");
}

std::optional<std::string> SparseSpaceWarning(const std::string& path, const FileSpace& space) {
  // Allocation rounds up to blocks, so a fully written file may show more than its size.
  const uint64_t holes = space.size > space.allocated ? space.size - space.allocated : 0;
  if (holes <= space.free) return std::nullopt;
  return path + " is a sparse file: " + FormatSize(holes) + " of it is not allocated and its " +
         "filesystem has " + FormatSize(space.free) + " free. When that runs out, the cache's " +
         "writes fail and it stops caching (health: failed) until space is freed and `tiercache " +
         "reset-health` runs. Allocate it before starting tiercached: fallocate -l " +
         std::to_string(space.size) + " " + path;
}

}  // namespace tiercache
