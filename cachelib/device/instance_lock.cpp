#include "cachelib/device/instance_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>

namespace tiercache {

Result<std::unique_ptr<InstanceLock>> InstanceLock::Acquire(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::FromErrno(errno, "open " + path);
  if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
    int err = errno;
    close(fd);
    if (err == EWOULDBLOCK) {
      return Status::Busy(path + " is in use by another tiercached (stop it first)");
    }
    return Status::FromErrno(err, "flock " + path);
  }
  return std::unique_ptr<InstanceLock>(new InstanceLock(fd));
}

InstanceLock::~InstanceLock() { close(fd_); }

}  // namespace tiercache
