// Listener: a non-blocking listening socket, Unix or TCP. A Unix socket is created mode 0600
// inside a directory created mode 0700 when missing; a stale socket file (nobody accepting)
// is replaced, a live one is an error. The socket file is removed on destruction.
// Owns its fd; not thread-safe (used from one loop thread).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "cachelib/common/status.h"

namespace tiercache::nbd {

class Listener {
 public:
  // Listens on the Unix socket `path`.
  static Result<std::unique_ptr<Listener>> Unix(const std::string& path);
  // Listens on "HOST:PORT" ("[::1]:10809", "127.0.0.1:0" for any free port).
  static Result<std::unique_ptr<Listener>> Tcp(const std::string& host_port);
  ~Listener();
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  int fd() const { return fd_; }
  bool is_tcp() const { return tcp_; }
  // The bound TCP port (useful after asking for port 0); 0 for Unix sockets.
  uint16_t port() const { return port_; }

  // Accepts one pending connection as a non-blocking, close-on-exec socket (TCP_NODELAY on
  // TCP). Returns -1 when none is pending; errors such as EMFILE come back as a Status.
  Result<int> Accept();

 private:
  Listener(int fd, bool tcp, std::string unlink_path, uint16_t port)
      : fd_(fd), tcp_(tcp), unlink_path_(std::move(unlink_path)), port_(port) {}

  int fd_;
  bool tcp_;
  std::string unlink_path_;
  uint16_t port_;
};

}  // namespace tiercache::nbd
