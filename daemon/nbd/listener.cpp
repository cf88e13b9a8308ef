#include "daemon/nbd/listener.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "daemon/common/host_port.h"

namespace tiercache::nbd {
namespace {

// Creates the socket's directory (mode 0700) when it does not exist yet.
Status EnsureDirectory(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0) return Status::Ok();
  std::string dir = path.substr(0, slash);
  if (::mkdir(dir.c_str(), 0700) == 0 || errno == EEXIST) return Status::Ok();
  return Status::FromErrno(errno, "mkdir " + dir);
}

// Removes a socket file left by a dead server; refuses to touch a live socket or other files.
Status RemoveStaleSocket(const std::string& path, const sockaddr_un& addr) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) {
    return errno == ENOENT ? Status::Ok() : Status::FromErrno(errno, "lstat " + path);
  }
  if (!S_ISSOCK(st.st_mode)) return Status::Busy(path + " exists and is not a socket");
  int probe = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (probe < 0) return Status::FromErrno(errno, "socket");
  int r = ::connect(probe, reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
  int err = errno;
  ::close(probe);
  if (r == 0) return Status::Busy(path + " is in use by a running server");
  if (err != ECONNREFUSED) return Status::FromErrno(err, "probe " + path);
  if (::unlink(path.c_str()) != 0) return Status::FromErrno(errno, "unlink " + path);
  return Status::Ok();
}

// Binds and listens on the first address of `ai` that works.
Result<int> BindFirst(addrinfo* ai, const std::string& what) {
  Status last = Status::NotFound("no address for " + what);
  for (; ai != nullptr; ai = ai->ai_next) {
    int fd =
        ::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      last = Status::FromErrno(errno, "socket");
      continue;
    }
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && ::listen(fd, SOMAXCONN) == 0) return fd;
    last = Status::FromErrno(errno, "bind/listen " + what);
    ::close(fd);
  }
  return last;
}

uint16_t BoundPort(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return 0;
  if (ss.ss_family == AF_INET) return ntohs(reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
  if (ss.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port);
  return 0;
}

}  // namespace

Result<std::unique_ptr<Listener>> Listener::Unix(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof addr.sun_path) {
    return Status::InvalidArgument("bad Unix socket path '" + path + "'");
  }
  std::memcpy(addr.sun_path, path.data(), path.size());
  TC_RETURN_IF_ERROR(EnsureDirectory(path));
  TC_RETURN_IF_ERROR(RemoveStaleSocket(path, addr));
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status::FromErrno(errno, "socket");
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    Status s = Status::FromErrno(errno, "bind " + path);
    ::close(fd);
    return s;
  }
  // Only the owner may connect. The 0700 directory covers the moment before the chmod.
  if (::chmod(path.c_str(), 0600) != 0 || ::listen(fd, SOMAXCONN) != 0) {
    Status s = Status::FromErrno(errno, "chmod/listen " + path);
    ::close(fd);
    ::unlink(path.c_str());
    return s;
  }
  return std::unique_ptr<Listener>(new Listener(fd, false, path, 0));
}

Result<std::unique_ptr<Listener>> Listener::Tcp(const std::string& host_port) {
  std::string host, port;
  TC_RETURN_IF_ERROR(SplitHostPort(host_port, host, port));
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* ai = nullptr;
  int rc = ::getaddrinfo(host.empty() ? nullptr : host.c_str(), port.c_str(), &hints, &ai);
  if (rc != 0) {
    return Status::InvalidArgument("resolve '" + host_port + "': " + ::gai_strerror(rc));
  }
  Result<int> fd = BindFirst(ai, host_port);
  ::freeaddrinfo(ai);
  if (!fd.ok()) return fd.status();
  return std::unique_ptr<Listener>(new Listener(*fd, true, "", BoundPort(*fd)));
}

Listener::~Listener() {
  ::close(fd_);
  if (!unlink_path_.empty()) ::unlink(unlink_path_.c_str());
}

Result<int> Listener::Accept() {
  for (;;) {
    int fd = ::accept4(fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd >= 0) {
      if (tcp_) {
        int one = 1;
        ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      }
      return fd;
    }
    if (errno == EINTR || errno == ECONNABORTED) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return -1;
    return Status::FromErrno(errno, "accept");
  }
}

}  // namespace tiercache::nbd
