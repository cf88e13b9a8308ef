// Server: exports one Device over NBD. Listens on a Unix socket and/or TCP, accepts on the
// first of N LoopThreads and hands connections out round-robin; each Connection lives on one
// loop for its whole life; beyond max_connections open at once, new ones are closed at
// accept. Every connection shares the one Device, whose flush covers all completed writes, so
// NBD_FLAG_CAN_MULTI_CONN is advertised. Knows nothing about caching.
// Start/stop/destruction are thread-safe. The Device must stay alive until stop()'s `done` ran
// (or the destructor returned): after that the Server never touches it again, so a Device
// whose teardown posts to the server's loops (FileDevice) may be destroyed before the Server.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "cachelib/common/epoll_event_loop.h"
#include "cachelib/device/device.h"
#include "daemon/nbd/connection.h"
#include "daemon/nbd/export_info.h"
#include "daemon/nbd/listener.h"

namespace tiercache::nbd {

struct ServerConfig {
  // Unix socket path; empty for none. Its directory is created mode 0700 if missing.
  std::string unix_socket;
  // TCP "HOST:PORT" to listen on; empty for none. Port 0 picks a free port (see tcp_port()).
  std::string tcp_listen;
  // Event-loop threads serving connections. 0 (default) means one per core.
  unsigned threads = 0;
  // How the loops wait for events (busy polling); see EpollLoopOptions.
  EpollLoopOptions loop;
  // Canonical export name; the default export "" is always accepted too. Default "".
  std::string export_name;
  // Shown by NBD_OPT_LIST / NBD_INFO_DESCRIPTION; empty for none.
  std::string description;
  // Connections open at once, counted from accept until the connection is fully closed.
  // One more is accepted and closed at once (logged when the limit is first hit). Default 64,
  // must be > 0.
  size_t max_connections = 64;
  ConnectionOptions connection;

  // At least one listener; names and connection limits within bounds.
  Status validate() const;
};

class Server {
 public:
  // Binds the listeners and starts the loops. Fails if nothing can be bound.
  static Result<std::unique_ptr<Server>> Start(Device& device, ServerConfig config);
  // Stops (as stop()) and waits if that has not happened yet.
  // REQUIRES: not called on one of the server's loop threads.
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Graceful stop: closes the listeners (removing the Unix socket), lets every connection
  // finish its in-flight requests and write their replies, closes them, then calls `done`
  // once, on one of the server's loop threads (do not destroy the Server from inside it).
  // Thread-safe. A call made while a stop is under way is called back too; after the stop
  // completed, `done` runs at once on the calling thread.
  void stop(std::function<void()> done);

  const ExportInfo& export_info() const { return info_; }
  uint16_t tcp_port() const { return tcp_port_; }
  // Connections currently open (relaxed; exact once quiescent).
  size_t connection_count() const { return open_connections_.load(); }
  // Connections closed at accept because max_connections were open (relaxed).
  uint64_t refused_connections() const { return refused_connections_.load(); }

 private:
  // One loop thread and the connections it owns (touched only on that thread).
  struct Worker {
    std::unique_ptr<LoopThread> thread;
    std::unordered_map<Connection*, std::shared_ptr<Connection>> connections;
    bool stopping = false;
    bool reported = false;
  };

  Server(Device& device, ServerConfig config, ExportInfo info);
  Status Listen();
  void OnAcceptable(Listener* listener);
  // Closes `fd` when max_connections are open; true when it did.
  bool RefuseOverLimit(int fd);
  void Adopt(Worker* worker, int fd, uint64_t id);
  void StopWorker(Worker* worker);
  void MaybeWorkerStopped(Worker* worker);
  void RunStopCallbacks();
  Worker& accept_worker() { return *workers_[0]; }

  Device& device_;
  const ServerConfig config_;
  const ExportInfo info_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<std::unique_ptr<Listener>> listeners_;  // accept loop only after Start
  uint16_t tcp_port_ = 0;
  size_t next_worker_ = 0;  // accept loop only
  uint64_t next_id_ = 1;    // accept loop only
  // Counted from accept (on the accept loop) to the connection's end (on its own loop).
  std::atomic<size_t> open_connections_{0};
  std::atomic<uint64_t> refused_connections_{0};
  uint64_t refused_since_log_ = 0;  // accept loop only: refusals since the limit was hit

  std::mutex stop_mu_;
  bool stop_requested_ = false;                   // GUARDED_BY(stop_mu_)
  std::vector<std::function<void()>> stop_done_;  // GUARDED_BY(stop_mu_)
  bool stopped_ = false;                          // GUARDED_BY(stop_mu_): every connection is gone
  bool done_called_ = false;  // GUARDED_BY(stop_mu_): the done callbacks have returned
  std::condition_variable stopped_cv_;
  std::atomic<size_t> workers_running_{0};
};

}  // namespace tiercache::nbd
