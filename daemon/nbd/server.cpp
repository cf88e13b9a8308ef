#include "daemon/nbd/server.h"

#include <sys/epoll.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "cachelib/common/logger.h"

namespace tiercache::nbd {
namespace {

// After EMFILE/ENFILE, accepting pauses this long (the pending connection would spin epoll).
constexpr auto kAcceptBackoff = std::chrono::milliseconds(100);

}  // namespace

Status ServerConfig::validate() const {
  if (unix_socket.empty() && tcp_listen.empty()) {
    return Status::InvalidArgument("no listener: give a Unix socket path or HOST:PORT");
  }
  if (connection.max_in_flight == 0) {
    return Status::InvalidArgument("max_in_flight must be > 0");
  }
  if (max_connections == 0) return Status::InvalidArgument("max_connections must be > 0");
  if (connection.range_chunk_bytes == 0) {
    return Status::InvalidArgument("range_chunk_bytes must be > 0");
  }
  if (connection.handshake_timeout <= Nanos(0)) {
    return Status::InvalidArgument("handshake_timeout must be > 0");
  }
  return Status::Ok();
}

Result<std::unique_ptr<Server>> Server::Start(Device& device, ServerConfig config) {
  TC_RETURN_IF_ERROR(config.validate());
  TC_RETURN_IF_ERROR(ExportInfo::Validate(config.export_name, config.description,
                                          device.block_size(), device.max_io_bytes()));
  ExportInfo info = ExportInfo::ForDevice(device, config.export_name, config.description);
  std::unique_ptr<Server> server(new Server(device, std::move(config), std::move(info)));
  TC_RETURN_IF_ERROR(server->Listen());
  unsigned threads = server->config_.threads;
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned i = 0; i < threads; ++i) {
    auto thread = LoopThread::Start("nbd-loop", server->config_.loop);
    if (!thread.ok()) return thread.status();
    auto worker = std::make_unique<Worker>();
    worker->thread = std::move(thread).value();
    server->workers_.push_back(std::move(worker));
  }
  Server* s = server.get();
  Status watched;
  s->accept_worker().thread->run_sync([s, &watched] {
    for (auto& listener : s->listeners_) {
      Listener* l = listener.get();
      watched = s->accept_worker().thread->loop().watch_fd(
          l->fd(), EPOLLIN, [s, l](uint32_t) { s->OnAcceptable(l); });
      if (!watched.ok()) return;
    }
  });
  TC_RETURN_IF_ERROR(watched);
  return server;
}

Server::Server(Device& device, ServerConfig config, ExportInfo info)
    : device_(device), config_(std::move(config)), info_(std::move(info)) {}

Server::~Server() {
  bool requested;
  {
    std::lock_guard lock(stop_mu_);
    requested = stop_requested_;
  }
  if (!requested && !workers_.empty()) stop(nullptr);
  if (!workers_.empty()) {
    std::unique_lock lock(stop_mu_);
    stopped_cv_.wait(lock, [this] { return done_called_; });
  }
  workers_.clear();  // joins the loop threads
  listeners_.clear();
}

Status Server::Listen() {
  if (!config_.unix_socket.empty()) {
    auto l = Listener::Unix(config_.unix_socket);
    if (!l.ok()) return l.status();
    listeners_.push_back(std::move(l).value());
  }
  if (!config_.tcp_listen.empty()) {
    auto l = Listener::Tcp(config_.tcp_listen);
    if (!l.ok()) return l.status();
    tcp_port_ = (*l)->port();
    listeners_.push_back(std::move(l).value());
  }
  return Status::Ok();
}

void Server::OnAcceptable(Listener* listener) {
  EpollEventLoop& loop = accept_worker().thread->loop();
  for (;;) {
    Result<int> fd = listener->Accept();
    if (!fd.ok()) {
      LogError("nbd_accept_error",
               {{"error", fd.status().ToString()},
                {"pause_ms", std::to_string(kAcceptBackoff.count())}});
      loop.unwatch_fd(listener->fd());
      loop.schedule_after(kAcceptBackoff, [this, listener] {
        if (listeners_.empty()) return;  // stopped meanwhile: the listener is gone
        Status s = accept_worker().thread->loop().watch_fd(
            listener->fd(), EPOLLIN, [this, listener](uint32_t) { OnAcceptable(listener); });
        if (!s.ok()) LogError("nbd_accept_resume_error", {{"error", s.ToString()}});
      });
      return;
    }
    if (*fd < 0) return;
    if (RefuseOverLimit(*fd)) continue;
    Worker* worker = workers_[next_worker_++ % workers_.size()].get();
    uint64_t id = next_id_++;
    worker->thread->loop().post([this, worker, fd = *fd, id] { Adopt(worker, fd, id); });
  }
}

bool Server::RefuseOverLimit(int fd) {
  if (open_connections_.load(std::memory_order_relaxed) < config_.max_connections) {
    if (refused_since_log_ > 0) {
      LogInfo("nbd_connections_accepted_again",
              {{"refused_at_limit", std::to_string(refused_since_log_)}});
      refused_since_log_ = 0;
    }
    open_connections_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  refused_connections_.fetch_add(1, std::memory_order_relaxed);  // before the client sees EOF
  ::close(fd);
  // Once per episode: a client retrying in a loop must not flood the log.
  if (refused_since_log_++ == 0) {
    LogWarn("nbd_connection_limit", {{"max_connections", std::to_string(config_.max_connections)},
                                     {"what", "refusing new connections until one closes"}});
  }
  return true;
}

void Server::Adopt(Worker* worker, int fd, uint64_t id) {
  if (worker->stopping) {
    ::close(fd);
    open_connections_.fetch_sub(1, std::memory_order_relaxed);
    return;
  }
  auto conn =
      std::make_shared<Connection>(id, fd, worker->thread->loop(), device_, info_,
                                   config_.connection, [this, worker](Connection* c) {
                                     worker->connections.erase(c);
                                     open_connections_.fetch_sub(1, std::memory_order_relaxed);
                                     MaybeWorkerStopped(worker);
                                   });
  worker->connections.emplace(conn.get(), conn);
  conn->Start();
}

void Server::stop(std::function<void()> done) {
  {
    std::unique_lock lock(stop_mu_);
    if (stopped_) {
      lock.unlock();
      if (done) done();
      return;
    }
    if (done) stop_done_.push_back(std::move(done));
    if (stop_requested_) return;
    stop_requested_ = true;
  }
  workers_running_.store(workers_.size());
  accept_worker().thread->loop().post([this] {
    EpollEventLoop& loop = accept_worker().thread->loop();
    for (auto& listener : listeners_) loop.unwatch_fd(listener->fd());
    listeners_.clear();  // closes the sockets, removes the Unix socket file
    // Posted after every Adopt() this loop queued, so none can slip in behind the stop.
    for (auto& worker : workers_) {
      Worker* w = worker.get();
      w->thread->loop().post([this, w] { StopWorker(w); });
    }
  });
}

void Server::StopWorker(Worker* worker) {
  worker->stopping = true;
  // Shutdown() may finish a connection at once, which erases it from the map: copy first.
  std::vector<std::shared_ptr<Connection>> connections;
  for (auto& [raw, conn] : worker->connections) connections.push_back(conn);
  for (auto& conn : connections) conn->Shutdown();
  MaybeWorkerStopped(worker);
}

void Server::MaybeWorkerStopped(Worker* worker) {
  if (!worker->stopping || worker->reported || !worker->connections.empty()) return;
  worker->reported = true;
  if (workers_running_.fetch_sub(1) != 1) return;
  // From a fresh task: we may be deep inside a Device callback here, and `done` may destroy
  // the Device.
  worker->thread->loop().post([this] { RunStopCallbacks(); });
}

void Server::RunStopCallbacks() {
  std::vector<std::function<void()>> done;
  {
    std::lock_guard lock(stop_mu_);
    done.swap(stop_done_);
    stopped_ = true;
  }
  for (auto& fn : done) fn();
  std::lock_guard lock(stop_mu_);
  done_called_ = true;
  stopped_cv_.notify_all();
}

}  // namespace tiercache::nbd
