// ControlServer: the daemon's control socket. Listens on a Unix stream socket (mode 0600) on an
// EventLoop with fds (EpollEventLoop) and serves the JSON-lines control protocol (docs/cli.md) to
// any number of clients, each through a ControlConnection, against one ControlTarget.
// Ownership: does not own the loop or the target; both must outlive the server.
// Threading: Start(), the destructor and every accessor run on the loop's thread.
//
// Stopping the daemon: ControlTarget::stop's done sends the reply; destroy the server afterwards
// from a task posted to the loop (posting order puts the reply first). The destructor makes one
// last non-blocking attempt to write pending replies, closes all clients and removes the socket.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <unordered_map>

#include "cachelib/common/event_loop.h"
#include "daemon/control/control_connection.h"
#include "daemon/control/control_handler.h"
#include "daemon/control/control_target.h"

namespace tiercache {

struct ControlServerOptions {
  // Socket path, e.g. DefaultControlPath(cache_path). Must fit sockaddr_un (< 108 bytes).
  std::string path;
  // Longest request line in bytes; a longer line gets an error and the client is disconnected.
  size_t max_line_bytes = 64 * 1024;
  // Clients served at once; more are sent a Busy error and disconnected. Must be >= 1.
  size_t max_connections = 16;
  // Minimum time between two flush progress lines to one client. Default: 200 ms.
  Nanos progress_interval = std::chrono::milliseconds(200);
  Status validate() const;
};

class ControlServer {
 public:
  // Binds and listens. A stale socket file (nobody listening) is replaced; a live one is refused
  // with Busy; a path that exists and is not a socket is refused with InvalidArgument.
  static Result<std::unique_ptr<ControlServer>> Start(EventLoop& loop, ControlTarget& target,
                                                      ControlServerOptions options);
  ~ControlServer();
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;

  const std::string& path() const { return options_.path; }
  size_t connection_count() const { return connections_.size(); }

 private:
  ControlServer(EventLoop& loop, ControlTarget& target, ControlServerOptions options,
                int listen_fd, ino_t inode);
  static constexpr Nanos kAcceptRetryDelay = std::chrono::milliseconds(100);

  Status watch_listener();
  void on_accept();
  void add_connection(int fd);

  EventLoop& loop_;
  const ControlServerOptions options_;
  const int listen_fd_;
  const ino_t inode_;  // of the socket file we created; only that file is unlinked
  ControlHandler handler_;
  EventLoop::TimerId retry_timer_ = 0;  // pending accept retry after running out of fds
  std::unordered_map<ControlConnection*, std::shared_ptr<ControlConnection>> connections_;
};

}  // namespace tiercache
