#include "daemon/control/control_server.h"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "daemon/control/unix_socket.h"

namespace tiercache {

Status ControlServerOptions::validate() const {
  if (path.empty()) return Status::InvalidArgument("control socket path is empty");
  if (max_line_bytes == 0) return Status::InvalidArgument("max_line_bytes must be > 0");
  if (max_connections == 0) return Status::InvalidArgument("max_connections must be >= 1");
  if (progress_interval.count() < 0) {
    return Status::InvalidArgument("progress_interval must be >= 0");
  }
  return Status::Ok();
}

Result<std::unique_ptr<ControlServer>> ControlServer::Start(EventLoop& loop,
                                                            ControlTarget& target,
                                                            ControlServerOptions options) {
  TC_RETURN_IF_ERROR(options.validate());
  Result<ListeningSocket> socket = ListenUnix(options.path);
  if (!socket.ok()) return socket.status();
  std::unique_ptr<ControlServer> server(
      new ControlServer(loop, target, std::move(options), socket->fd, socket->inode));
  Status watched = server->watch_listener();
  if (!watched.ok()) return watched;  // the destructor closes and unlinks
  return server;
}

ControlServer::ControlServer(EventLoop& loop, ControlTarget& target, ControlServerOptions options,
                             int listen_fd, ino_t inode)
    : loop_(loop),
      options_(std::move(options)),
      listen_fd_(listen_fd),
      inode_(inode),
      handler_(loop, target, options_.progress_interval) {}

ControlServer::~ControlServer() {
  if (retry_timer_ != 0) loop_.cancel(retry_timer_);
  loop_.unwatch_fd(listen_fd_);
  ::close(listen_fd_);
  UnlinkIfSame(options_.path, inode_);
  auto connections = std::move(connections_);
  connections_.clear();
  for (auto& [raw, connection] : connections) connection->close_now();
}

void ControlServer::on_accept() {
  for (;;) {
    int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd >= 0) {
      add_connection(fd);
      continue;
    }
    if (errno == EINTR || errno == ECONNABORTED) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return;
    // Out of fds (EMFILE, ENFILE, ENOBUFS): the listening socket stays readable, so pause
    // accepting instead of spinning, and retry shortly.
    loop_.unwatch_fd(listen_fd_);
    retry_timer_ = loop_.schedule_after(kAcceptRetryDelay, [this] {
      retry_timer_ = 0;
      if (!watch_listener().ok()) return;
      on_accept();
    });
    return;
  }
}

Status ControlServer::watch_listener() {
  return loop_.watch_fd(listen_fd_, EPOLLIN, [this](uint32_t) { on_accept(); });
}

void ControlServer::add_connection(int fd) {
  ControlConnection::Options options;
  options.max_line_bytes = options_.max_line_bytes;
  auto connection = std::make_shared<ControlConnection>(
      loop_, fd, handler_, options, [this](ControlConnection* closed) {
        connections_.erase(closed);
      });
  if (!connection->start().ok()) return;  // the connection closes its fd on destruction
  connections_.emplace(connection.get(), connection);
  if (connections_.size() > options_.max_connections) {
    connection->reject(ErrorResponse(Status::Busy(
        "too many control connections (limit " + std::to_string(options_.max_connections) + ")")));
  }
}

}  // namespace tiercache
