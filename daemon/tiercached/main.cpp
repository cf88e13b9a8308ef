// tiercached: serves an SSD-cached HDD over NBD with a control socket. See docs/tiercached.8.md.
// Startup is a StartupSequence of named steps (lock, daemonize, run directory, event loop, open
// cache, trace recorder, control socket, NBD server, ublk, pidfile, ready); a failing step undoes
// the ones before it, newest first, and is reported as "tiercached: <step>: <error>". Shutdown
// (SIGTERM/SIGINT or `tiercache stop`) runs the same undos: the front-ends stop (in-flight
// requests finish), the cache closes (metadata persisted, marked clean), `stop` is answered, and
// tiercached exits 0.
#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <future>
#include <optional>

#include "cachelib/device/instance_lock.h"
#include "cachelib/device/uring_context.h"
#include "cachelib/common/logger.h"
#include "daemon/common/daemon_process.h"
#include "daemon/common/heap_trimmer.h"
#include "daemon/control/control_paths.h"
#include "daemon/control/control_server.h"
#include "daemon/metrics/metrics_server.h"
#include "daemon/nbd/server.h"
#include "daemon/tiercached/cache_service.h"
#include "daemon/tiercached/daemon_config.h"
#include "daemon/tiercached/daemonizer.h"
#include "daemon/tiercached/startup_sequence.h"
#include "daemon/tiercached/trace_recorder.h"
#include "daemon/ublk/ublk_server.h"

namespace tiercache {
namespace {

// The daemon's state from the first step to the last undo. Used by the main thread only, but
// for the stop request, which arrives on the main loop.
class Tiercached {
 public:
  explicit Tiercached(const DaemonConfig& config) : config_(config) {}
  int Run();

 private:
  void AddSteps(StartupSequence& steps);
  Status Lock();
  Status Daemonize();
  Status StartLoop();
  Status OpenCache();
  void FreeCache();
  Status StartRecorder();
  void StopRecorder();
  Status StartControl();
  void StopControl();
  Status StartNbd();
  Status StartUblk();
  Status StartMetrics();
  void StopMetrics();
  Status Ready();
  // Closes the cache once, keeping the outcome. REQUIRES: no front-end serves it any more.
  void CloseCache();
  void ReportFailure(const std::string& message);

  const DaemonConfig& config_;
  DaemonProcess process_;  // first: blocks the stop signals before any thread starts
  std::unique_ptr<InstanceLock> lock_;
  std::optional<Daemonizer> daemon_;
  std::unique_ptr<LoopThread> loop_;
  std::unique_ptr<HeapTrimmer> trimmer_;  // on loop_
  std::unique_ptr<nbd::Server> server_;
  std::unique_ptr<UblkServer> ublk_;
  std::unique_ptr<CacheService> service_;
  std::unique_ptr<TraceRecorder> recorder_;
  std::unique_ptr<ControlServer> control_;
  std::unique_ptr<MetricsServer> metrics_;  // --metrics; on loop_
  Device* exported_ = nullptr;  // what NBD and ublk serve: the cache, or the recorder over it
  std::optional<Status> closed_;  // how the cache closed, once it has
  ControlTarget::DoneCallback stop_reply_;  // answers `tiercache stop` after the shutdown
  std::atomic<bool> stop_requested_{false};
};

// Stops a front-end and waits until its in-flight requests have completed.
template <typename Server>
void StopAndWait(Server* server) {
  std::promise<void> stopped;
  server->stop([&] { stopped.set_value(); });
  stopped.get_future().wait();
}

void Tiercached::AddSteps(StartupSequence& steps) {
  steps.add("lock", [this] { return Lock(); }, [this] { lock_.reset(); });
  steps.add("daemonize", [this] { return Daemonize(); });
  steps.add("run directory", [] { return EnsureRunDirectory(); });
  steps.add("event loop", [this] { return StartLoop(); }, [this] {
    loop_->run_sync([this] { trimmer_.reset(); });
    loop_.reset();
  });
  steps.add("open cache", [this] { return OpenCache(); }, [this] { FreeCache(); });
  if (!config_.record_path.empty()) {
    steps.add("trace recorder", [this] { return StartRecorder(); }, [this] { StopRecorder(); });
  }
  // The control socket comes before the front-ends so that its undo comes after theirs: the
  // cache closes there, once no client I/O is left, and `tiercache stop` is answered after it.
  steps.add("control socket", [this] { return StartControl(); }, [this] { StopControl(); });
  steps.add("NBD server", [this] { return StartNbd(); }, [this] { StopAndWait(server_.get()); });
  // NBD and ublk may serve the cache at once: the Cache is one thread-safe Device whose FLUSH
  // covers every completed write, whichever front-end it came through.
  if (config_.ublk) {
    steps.add("ublk", [this] { return StartUblk(); }, [this] { StopAndWait(ublk_.get()); });
  }
  if (!config_.metrics_listen.empty()) {
    steps.add("metrics", [this] { return StartMetrics(); }, [this] { StopMetrics(); });
  }

  if (!config_.pidfile.empty()) {
    steps.add("pidfile", [this] { return process_.WritePidfile(config_.pidfile); },
              [this] { process_.RemovePidfile(); });
  }
  steps.add("ready", [this] { return Ready(); });
}

Status Tiercached::Lock() {
  auto lock = InstanceLock::Acquire(config_.cache_path);
  if (!lock.ok()) return lock.status();
  lock_ = std::move(lock).value();
  return Status::Ok();
}

// Forks unless --foreground: after the lock (the child holds it), before any thread.
Status Tiercached::Daemonize() {
  daemon_.emplace(config_.foreground);
  return Status::Ok();
}

Status Tiercached::StartLoop() {
  auto loop = LoopThread::Start("tiercached");
  if (!loop.ok()) return loop.status();
  loop_ = std::move(loop).value();
  // The request buffers the heap keeps (Run(): no mmap per request) go back after a burst.
  loop_->run_sync([this] {
    trimmer_ = std::make_unique<HeapTrimmer>(loop_->loop(), HeapTrimmer::Options{});
    trimmer_->start();
  });
  return Status::Ok();
}

Status Tiercached::OpenCache() {
  auto service = CacheService::Open(config_, *loop_);
  if (!service.ok()) return service.status();
  service_ = std::move(service).value();
  exported_ = &service_->cache();
  return Status::Ok();
}

// Undo of "open cache": a cache still open (a later step failed before the control socket's
// undo closed it) is closed cleanly, or the next start is cold. The devices go before the
// front-ends: a FileDevice unregisters from every loop that used it, and the (stopped) NBD and
// ublk servers' loops are among them.
void Tiercached::FreeCache() {
  CloseCache();
  service_.reset();
  ublk_.reset();
  server_.reset();
}

Status Tiercached::StartRecorder() {
  auto recorder = TraceRecorder::Create(*exported_, config_.record_path, SteadyClock::instance());
  if (!recorder.ok()) return recorder.status();
  recorder_ = std::move(recorder).value();
  exported_ = recorder_.get();
  return Status::Ok();
}

void Tiercached::StopRecorder() {
  recorder_.reset();
  exported_ = &service_->cache();
}

// `tiercache stop` runs the shutdown on the main thread and is answered when it is done.
Status Tiercached::StartControl() {
  service_->set_shutdown([this](ControlTarget::DoneCallback done) {
    stop_reply_ = std::move(done);
    stop_requested_ = true;
  });
  Result<std::unique_ptr<ControlServer>> control = Status::IoError("not started");
  ControlServerOptions options;
  options.path = config_.control_path;
  loop_->run_sync([&] { control = ControlServer::Start(loop_->loop(), *service_, options); });
  if (!control.ok() && control.status().code() == Status::Code::kBusy &&
      config_.control_path == DefaultControlPath(config_.cache_path)) {
    // The instance lock passed: not a daemon of this cache, likely one of another cache whose
    // file has the same name.
    return Status::Busy(control.status().message() + " (the default control socket of every "
                        "cache named " + CacheName(config_.cache_path) + "; give this one its own "
                        "with --control PATH and --socket PATH)");
  }
  if (!control.ok()) return control.status();
  control_ = std::move(control).value();
  return Status::Ok();
}

// Undo of "control socket": the front-ends have stopped (their undos came first), so the cache
// closes here and a pending `tiercache stop` is answered with how that went. The server goes in
// a later task on its loop, so the reply is written first.
void Tiercached::StopControl() {
  CloseCache();
  // The daemon exits whether the close worked or not: a failed one must say so, not read as a
  // failed stop of a daemon still running.
  const Status reply =
      closed_->ok() ? *closed_
                    : closed_->with_message("tiercached stopped, but the cache could not be closed "
                                            "cleanly (the next start finds it unclean; dirty data "
                                            "is kept): " + closed_->message());
  loop_->run_sync([&] {  // stop_reply_ is set on the loop
    if (stop_reply_) stop_reply_(reply);
  });
  loop_->run_sync([&] { control_.reset(); });
}

Status Tiercached::StartNbd() {
  nbd::ServerConfig nbd;
  nbd.unix_socket = config_.socket_path;
  nbd.tcp_listen = config_.tcp_listen;
  nbd.threads = config_.threads;
  nbd.loop.busy_poll = std::chrono::microseconds(config_.poll_us);
  nbd.export_name = config_.export_name;
  nbd.description = "tiercache " + config_.cache_path;
  nbd.max_connections = config_.max_connections;
  // The sockets share each loop's io_uring with the devices; with --io-backend aio there is none.
  nbd.connection.ring_socket = config_.socket_io == "ring" && config_.io_backend != IoBackend::kAio;
  nbd.connection.handshake_timeout = std::chrono::duration_cast<Nanos>(
      std::chrono::duration<double>(config_.handshake_timeout_s));
  auto server = nbd::Server::Start(*exported_, nbd);
  if (!server.ok()) return server.status();
  server_ = std::move(server).value();
  // What the connections will find: the ring unless io_uring is refused (RingSocket falls back).
  const bool ring = nbd.connection.ring_socket && UringContext::Probe().ok();
  service_->set_export(config_.socket_path, ring ? "io_uring" : "epoll");
  return Status::Ok();
}

// Starts (or, after a crash, recovers) the ublk device over the cache.
Status Tiercached::StartUblk() {
  UblkOptions options;
  options.dev_id = config_.ublk_id;
  options.queues = config_.ublk_queues;
  options.depth = config_.ublk_depth;
  // 512-byte logical sectors (4096-byte physical), as a 512e disk: the cache takes any of them.
  options.logical_block_size = exported_->block_size();
  // --io-backend aio: no io_uring on the loops, so each queue keeps a ring of its own.
  options.own_ring = config_.io_backend == IoBackend::kAio;
  auto started = config_.ublk_recover >= 0
                     ? UblkServer::Recover(*exported_, uint32_t(config_.ublk_recover), options)
                     : UblkServer::Start(*exported_, options);
  if (!started.ok()) return started.status();
  ublk_ = std::move(started).value();
  LogInfo("ublk_start", {{"device", ublk_->block_device()},
                         {"ring", ublk_->command_rings()},
                         {"fixed_file", ublk_->fixed_files() ? "1" : "0"},
                         {"fixed_buffers", ublk_->fixed_buffers() ? "1" : "0"}});
  return Status::Ok();
}

// --metrics: the HTTP server on the control loop, reading the same stats as `tiercache stats`.
Status Tiercached::StartMetrics() {
  Result<std::unique_ptr<MetricsServer>> metrics = Status::IoError("not started");
  loop_->run_sync([&] {
    metrics = MetricsServer::Start(loop_->loop(), config_.metrics_listen,
                                   MetricsServer::PrometheusOf(*service_));
  });
  if (!metrics.ok()) return metrics.status();
  metrics_ = std::move(metrics).value();
  return Status::Ok();
}

void Tiercached::StopMetrics() {
  loop_->run_sync([&] { metrics_.reset(); });
}

Status Tiercached::Ready() {
  // With --listen HOST:0 the port is the kernel's pick: the start event says which.
  const std::string tcp = config_.tcp_listen.empty()
                              ? std::string()
                              : config_.tcp_listen.substr(0, config_.tcp_listen.rfind(':') + 1) +
                                    std::to_string(server_->tcp_port());
  LogInfo("start", {{"cache", config_.cache_path},
                    {"core", service_->status().core_path},
                    {"export", config_.socket_path},
                    {"tcp", tcp},
                    {"control", config_.control_path},
                    {"metrics", config_.metrics_listen},
                    {"mode", std::string(ModeName(service_->mode()))},
                    {"pid", std::to_string(getpid())}});
  daemon_->ready();
  return Status::Ok();
}

void Tiercached::CloseCache() {
  if (closed_ || !service_) return;
  std::promise<Status> closed;
  service_->close([&](Status s) { closed.set_value(std::move(s)); });
  closed_ = closed.get_future().get();
}

// Before "daemonize" there is no parent waiting: the message goes straight to stderr.
void Tiercached::ReportFailure(const std::string& message) {
  if (daemon_) {
    daemon_->failed(message);
  } else {
    std::fprintf(stderr, "%s\n", message.c_str());
  }
}

int Tiercached::Run() {
  // Request buffers up to 32 MiB come and go at a high rate: keep them in malloc's heap for
  // reuse instead of a fresh mmap (and page faults) per request.
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  StartupSequence steps;
  AddSteps(steps);
  if (Status s = steps.start(); !s.ok()) {
    ReportFailure("tiercached: " + steps.failed_step() + ": " + s.ToString());
    return 1;
  }
  process_.WaitForStop(stop_requested_);
  if (daemon_) daemon_->stopping();  // systemd: STOPPING=1
  steps.unwind();
  const Status closed = closed_.value_or(Status::Ok());
  if (!closed.ok()) {
    LogError("stop", {{"cache", config_.cache_path}, {"clean", "false"}, {"error", closed.ToString()}});
    return 1;
  }
  LogInfo("stop", {{"cache", config_.cache_path}, {"clean", "true"}});
  return 0;
}

}  // namespace
}  // namespace tiercache

int main(int argc, char** argv) {
  auto config = tiercache::ParseDaemonConfig(argc, argv);
  if (!config.ok()) {
    if (config.status().code() == tiercache::Status::Code::kNotFound) return 0;  // --help
    // A config file's errors are one per line: each gets the program's name.
    std::string message = config.status().message();
    for (size_t start = 0; start <= message.size();) {
      size_t end = std::min(message.find('\n', start), message.size());
      std::fprintf(stderr, "tiercached: %s\n", message.substr(start, end - start).c_str());
      start = end + 1;
    }
    std::fprintf(stderr, "Run tiercached --help for usage.\n");
    return 2;
  }
  tiercache::Logger::instance().set_level(config->log_level);
  return tiercache::Tiercached(*config).Run();
}
