// MetricsServer: tiercached --metrics: answers HTTP GET /metrics with the Prometheus text of the
// cache's stats (the same text as `tiercache stats --prometheus`). One small HTTP/1.0 responder
// on an EventLoop with fds: each connection sends one request head, gets one response and is
// closed; a client silent for kIdleTimeout, or sending a head over kMaxHeadBytes, is dropped.
// Ownership: does not own the loop or the render function's state; both must outlive it.
// Threading: Start(), the destructor and every call of `render` run on the loop's thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "cachelib/common/event_loop.h"
#include "daemon/control/control_target.h"
#include "daemon/nbd/listener.h"

namespace tiercache {

class MetricsServer {
 public:
  using Render = std::function<std::string()>;

  // Listens on "HOST:PORT" (MetricsListenAddress). REQUIRES: on the loop's thread.
  static Result<std::unique_ptr<MetricsServer>> Start(EventLoop& loop, const std::string& address,
                                                      Render render);
  // The exposition of `target`'s stats (FormatPrometheus of the stats reply).
  static Render PrometheusOf(const ControlTarget& target);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  uint16_t port() const { return listener_->port(); }

  static constexpr size_t kMaxHeadBytes = 8192;
  static constexpr size_t kMaxClients = 16;
  static constexpr Nanos kIdleTimeout = std::chrono::seconds(5);

 private:
  struct Client {
    std::string in, out;
    size_t sent = 0;
    bool closing = false;  // response sent and our side shut: reading until the client closes
    EventLoop::TimerId timer = 0;
  };
  MetricsServer(EventLoop& loop, std::unique_ptr<nbd::Listener> listener, Render render)
      : loop_(loop), listener_(std::move(listener)), render_(std::move(render)) {}

  void on_accept();
  void on_event(int fd, uint32_t events);
  bool read_head(int fd, Client& client);  // false: the client is gone
  void write_out(int fd, Client& client);
  void drain(int fd);
  void drop(int fd);

  EventLoop& loop_;
  std::unique_ptr<nbd::Listener> listener_;
  Render render_;
  std::map<int, Client> clients_;  // by fd
};

}  // namespace tiercache
