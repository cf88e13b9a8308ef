#include "daemon/metrics/metrics_server.h"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "daemon/control/control_json.h"
#include "daemon/control/prometheus_format.h"
#include "daemon/metrics/metrics_http.h"

namespace tiercache {

Result<std::unique_ptr<MetricsServer>> MetricsServer::Start(EventLoop& loop,
                                                            const std::string& address,
                                                            Render render) {
  auto listener = nbd::Listener::Tcp(address);
  if (!listener.ok()) return listener.status();
  std::unique_ptr<MetricsServer> server(
      new MetricsServer(loop, std::move(listener).value(), std::move(render)));
  MetricsServer* raw = server.get();
  TC_RETURN_IF_ERROR(
      loop.watch_fd(raw->listener_->fd(), EPOLLIN, [raw](uint32_t) { raw->on_accept(); }));
  return server;
}

MetricsServer::Render MetricsServer::PrometheusOf(const ControlTarget& target) {
  return [&target] { return FormatPrometheus(StatsToJson(target)); };
}

MetricsServer::~MetricsServer() {
  while (!clients_.empty()) drop(clients_.begin()->first);
  loop_.unwatch_fd(listener_->fd());
}

void MetricsServer::on_accept() {
  for (;;) {
    Result<int> fd = listener_->Accept();
    if (!fd.ok() || *fd < 0) return;  // none pending, or out of fds: the next event retries
    if (clients_.size() >= kMaxClients) {
      ::close(*fd);
      continue;
    }
    Client& client = clients_[*fd];
    client.timer = loop_.schedule_after(kIdleTimeout, [this, fd = *fd] {
      clients_[fd].timer = 0;
      drop(fd);
    });
    if (!loop_.watch_fd(*fd, EPOLLIN, [this, fd = *fd](uint32_t ev) { on_event(fd, ev); }).ok()) {
      drop(*fd);
    }
  }
}

void MetricsServer::on_event(int fd, uint32_t events) {
  auto it = clients_.find(fd);
  if (it == clients_.end()) return;
  Client& client = it->second;
  if (client.closing) return drain(fd);
  if (client.out.empty()) {
    if (!read_head(fd, client)) return;
    if (client.out.empty()) return;  // head incomplete: wait for more
    if (!loop_.modify_fd(fd, EPOLLOUT).ok()) return drop(fd);
  } else if ((events & (EPOLLERR | EPOLLHUP)) != 0 && (events & EPOLLOUT) == 0) {
    return drop(fd);
  }
  write_out(fd, client);
}

bool MetricsServer::read_head(int fd, Client& client) {
  char buf[4096];
  for (;;) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n > 0) {
      client.in.append(buf, size_t(n));
      if (client.in.size() > kMaxHeadBytes) break;
      if (HttpHeadComplete(client.in)) break;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    drop(fd);  // closed before a whole head, or an error
    return false;
  }
  client.out = client.in.size() > kMaxHeadBytes
                   ? std::string("HTTP/1.0 431 Request Header Fields Too Large\r\n"
                                 "Content-Length: 0\r\nConnection: close\r\n\r\n")
                   : MetricsHttpResponse(client.in, render_);
  return true;
}

void MetricsServer::write_out(int fd, Client& client) {
  while (client.sent < client.out.size()) {
    const ssize_t n = ::send(fd, client.out.data() + client.sent, client.out.size() - client.sent,
                             MSG_NOSIGNAL);
    if (n > 0) {
      client.sent += size_t(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;  // EPOLLOUT resumes
    return drop(fd);
  }
  // Closing with unread input (a POST body) would reset the connection and could destroy the
  // response in flight: shut our side, then read until the client closes (or the idle timer).
  ::shutdown(fd, SHUT_WR);
  client.closing = true;
  if (!loop_.modify_fd(fd, EPOLLIN).ok()) drop(fd);
}

void MetricsServer::drain(int fd) {
  char buf[4096];
  for (;;) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n > 0) continue;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    return drop(fd);
  }
}

void MetricsServer::drop(int fd) {
  auto it = clients_.find(fd);
  if (it == clients_.end()) return;
  if (it->second.timer != 0) loop_.cancel(it->second.timer);
  clients_.erase(it);
  loop_.unwatch_fd(fd);
  ::close(fd);
}

}  // namespace tiercache
