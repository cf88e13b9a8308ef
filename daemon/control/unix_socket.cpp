#include "daemon/control/unix_socket.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace tiercache {
namespace {

Result<sockaddr_un> MakeAddress(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof addr.sun_path) {
    return Status::InvalidArgument("socket path '" + path + "' must be 1 to " +
                                   std::to_string(sizeof addr.sun_path - 1) + " bytes long");
  }
  std::memcpy(addr.sun_path, path.data(), path.size());
  return addr;
}

// A connected blocking socket, or -errno.
int TryConnect(const sockaddr_un& addr) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -errno;
  if (connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) < 0) {
    int err = errno;
    ::close(fd);
    return -err;
  }
  return fd;
}

// Removes a stale socket file at `path`; refuses a live socket or a non-socket.
Status ClearStalePath(const std::string& path, const sockaddr_un& addr) {
  struct stat st;
  if (lstat(path.c_str(), &st) < 0) {
    return errno == ENOENT ? Status::Ok() : Status::FromErrno(errno, "stat " + path);
  }
  if (!S_ISSOCK(st.st_mode)) {
    return Status::InvalidArgument(path + " exists and is not a socket");
  }
  int probe = TryConnect(addr);
  if (probe >= 0) {
    ::close(probe);
    return Status::Busy("another process is listening on " + path);
  }
  if (probe != -ECONNREFUSED) return Status::FromErrno(-probe, "probe existing socket " + path);
  if (unlink(path.c_str()) < 0 && errno != ENOENT) {
    return Status::FromErrno(errno, "unlink stale socket " + path);
  }
  return Status::Ok();
}

}  // namespace

Result<int> ConnectUnix(const std::string& path) {
  Result<sockaddr_un> addr = MakeAddress(path);
  if (!addr.ok()) return addr.status();
  int fd = TryConnect(*addr);
  if (fd < 0) return Status::FromErrno(-fd, "connect " + path);
  return fd;
}

Result<ListeningSocket> ListenUnix(const std::string& path) {
  Result<sockaddr_un> addr = MakeAddress(path);
  if (!addr.ok()) return addr.status();
  TC_RETURN_IF_ERROR(ClearStalePath(path, *addr));
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status::FromErrno(errno, "socket");
  // Linux creates the socket file with the socket inode's mode (minus umask): no 0666 window.
  Status status;
  struct stat st;
  if (fchmod(fd, 0600) < 0) {
    status = Status::FromErrno(errno, "fchmod control socket");
  } else if (bind(fd, reinterpret_cast<const sockaddr*>(&*addr), sizeof(sockaddr_un)) < 0) {
    status = Status::FromErrno(errno, "bind " + path);
  } else if (chmod(path.c_str(), 0600) < 0 || lstat(path.c_str(), &st) < 0) {
    status = Status::FromErrno(errno, "chmod " + path);
    unlink(path.c_str());
  } else if (listen(fd, 16) < 0) {
    status = Status::FromErrno(errno, "listen " + path);
    unlink(path.c_str());
  }
  if (!status.ok()) {
    ::close(fd);
    return status;
  }
  return ListeningSocket{fd, st.st_ino};
}

void UnlinkIfSame(const std::string& path, ino_t inode) {
  struct stat st;
  if (lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode) && st.st_ino == inode) {
    unlink(path.c_str());
  }
}

}  // namespace tiercache
