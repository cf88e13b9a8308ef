#include "cachelib/device/instance_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>

#include "cachelib/device/loop_backing.h"

namespace tiercache {

namespace {

// An open descriptor of `path` holding its exclusive flock; `name` is how errors call it.
Result<int> LockFile(const std::string& path, const std::string& name) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::FromErrno(errno, "open " + path);
  if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
    int err = errno;
    close(fd);
    if (err == EWOULDBLOCK) {
      return Status::Busy(name + " is in use by another tiercached (stop it first)");
    }
    return Status::FromErrno(err, "flock " + path);
  }
  return fd;
}

}  // namespace

Result<std::unique_ptr<InstanceLock>> InstanceLock::Acquire(const std::string& path) {
  Result<int> fd = LockFile(path, path);
  if (!fd.ok()) return fd.status();
  std::vector<int> fds{*fd};
  if (const std::string backing = LoopBackingFile(path); !backing.empty()) {
    Result<int> file = LockFile(backing, path + " (a loop device over " + backing + ")");
    if (!file.ok()) {
      close(*fd);
      return file.status();
    }
    fds.push_back(*file);
  }
  return std::unique_ptr<InstanceLock>(new InstanceLock(std::move(fds)));
}

InstanceLock::~InstanceLock() {
  for (int fd : fds_) close(fd);
}

}  // namespace tiercache
