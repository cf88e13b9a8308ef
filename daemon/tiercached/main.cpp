// tiercached: serves an SSD-cached HDD over NBD with a control socket. See docs/tiercached.8.md.
// Startup: lock the cache, detach, open devices and cache, listen, report ready. Shutdown
// (SIGTERM/SIGINT or `tiercache stop`): stop NBD (in-flight requests finish), close the cache
// (metadata persisted, marked clean), exit 0.
#include <malloc.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <future>

#include "daemon/control/control_paths.h"
#include "cachelib/common/logger.h"
#include "daemon/control/control_server.h"
#include "daemon/metrics/metrics_server.h"
#include "daemon/nbd/server.h"
#include "daemon/ublk/ublk_server.h"
#include "daemon/tiercached/cache_service.h"
#include "daemon/tiercached/daemon_config.h"
#include "daemon/tiercached/daemonizer.h"
#include "cachelib/device/instance_lock.h"
#include "daemon/tiercached/trace_recorder.h"

namespace tiercache {
namespace {

std::atomic<bool> g_stop_requested{false};

sigset_t BlockShutdownSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);  // inherited by every thread started later
  signal(SIGPIPE, SIG_IGN);
  return set;
}

void WaitForStop(const sigset_t& signals) {
  timespec tick{0, 100'000'000};
  while (!g_stop_requested.load()) {
    int sig = sigtimedwait(&signals, nullptr, &tick);
    if (sig == SIGTERM || sig == SIGINT) return;
  }
}

// Starts (or, after a crash, recovers) the ublk device over the cache.
Result<std::unique_ptr<UblkServer>> StartUblk(const DaemonConfig& config, Device& volume) {
  UblkOptions options;
  options.dev_id = config.ublk_id;
  options.queues = config.ublk_queues;
  options.depth = config.ublk_depth;
  // 512-byte logical sectors (4096-byte physical), as a 512e disk: the cache takes any of them.
  options.logical_block_size = volume.block_size();
  if (config.ublk_recover >= 0) {
    return UblkServer::Recover(volume, uint32_t(config.ublk_recover), options);
  }
  return UblkServer::Start(volume, options);
}

// --metrics: the HTTP server on the control loop; nullptr when not asked for.
Result<std::unique_ptr<MetricsServer>> StartMetrics(const DaemonConfig& config, LoopThread& loop,
                                                    const ControlTarget& target) {
  Result<std::unique_ptr<MetricsServer>> metrics = std::unique_ptr<MetricsServer>();
  if (config.metrics_listen.empty()) return metrics;
  loop.run_sync([&] {
    metrics = MetricsServer::Start(loop.loop(), config.metrics_listen,
                                   MetricsServer::PrometheusOf(target));
  });
  return metrics;
}

// Stops ublk and NBD (in-flight requests complete), then closes the cache.
Status Shutdown(UblkServer* ublk, nbd::Server& server, CacheService& service) {
  if (ublk != nullptr) {
    std::promise<void> ublk_stopped;
    ublk->stop([&] { ublk_stopped.set_value(); });
    ublk_stopped.get_future().wait();
  }
  std::promise<void> stopped;
  server.stop([&] { stopped.set_value(); });
  stopped.get_future().wait();
  std::promise<Status> closed;
  service.close([&](Status s) { closed.set_value(std::move(s)); });
  return closed.get_future().get();
}

int Run(const DaemonConfig& config) {
  // Request buffers up to 32 MiB come and go at a high rate: keep them in malloc's heap for
  // reuse instead of a fresh mmap (and page faults) per request.
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  sigset_t signals = BlockShutdownSignals();
  auto lock = InstanceLock::Acquire(config.cache_path);
  if (!lock.ok()) {
    std::fprintf(stderr, "tiercached: %s\n", lock.status().ToString().c_str());
    return 1;
  }
  Daemonizer daemon(config.foreground);
  auto fail = [&](const std::string& what, const Status& s) {
    daemon.failed("tiercached: " + what + ": " + s.ToString());
    return 1;
  };
  if (Status s = EnsureRunDirectory(); !s.ok()) return fail("run directory", s);
  auto loop = LoopThread::Start("tiercached");
  if (!loop.ok()) return fail("event loop", loop.status());
  auto service = CacheService::Open(config, **loop);
  if (!service.ok()) return fail("cannot open cache " + config.cache_path, service.status());

  nbd::ServerConfig nbd_config;
  nbd_config.unix_socket = config.socket_path;
  nbd_config.tcp_listen = config.tcp_listen;
  nbd_config.threads = config.threads;
  nbd_config.loop.busy_poll = std::chrono::microseconds(config.poll_us);
  nbd_config.export_name = config.export_name;
  nbd_config.description = "tiercache " + config.cache_path;
  nbd_config.max_connections = config.max_connections;
  nbd_config.connection.handshake_timeout = std::chrono::duration_cast<Nanos>(
      std::chrono::duration<double>(config.handshake_timeout_s));
  Device* exported = &(*service)->cache();
  std::unique_ptr<TraceRecorder> recorder;
  if (!config.record_path.empty()) {
    auto r = TraceRecorder::Create(*exported, config.record_path, SteadyClock::instance());
    if (!r.ok()) return fail("cannot record", r.status());
    recorder = std::move(r).value();
    exported = recorder.get();
  }
  // From here on a failure must still close the cache cleanly (or the next start is cold).
  auto fail_open = [&](const std::string& what, const Status& s) {
    std::promise<Status> closed;
    (*service)->close([&](Status c) { closed.set_value(std::move(c)); });
    closed.get_future().wait();
    return fail(what, s);
  };
  auto server = nbd::Server::Start(*exported, nbd_config);
  if (!server.ok()) return fail_open("cannot serve NBD", server.status());
  (*service)->set_export_path(config.socket_path);
  // NBD and ublk may serve the cache at once: the Cache is one thread-safe Device whose FLUSH
  // covers every completed write, whichever front-end it came through.
  std::unique_ptr<UblkServer> ublk;
  if (config.ublk) {
    auto started = StartUblk(config, *exported);
    if (!started.ok()) {
      std::promise<void> stopped;
      (*server)->stop([&] { stopped.set_value(); });
      stopped.get_future().wait();
      return fail_open("cannot start ublk", started.status());
    }
    ublk = std::move(started).value();
    LogInfo("ublk_start", {{"device", ublk->block_device()}});
  }

  // `tiercache stop` runs the shutdown on the main thread and answers when it is done.
  std::promise<Status> stop_outcome;
  ControlTarget::DoneCallback stop_reply;
  (*service)->set_shutdown([&](ControlTarget::DoneCallback done) {
    stop_reply = std::move(done);
    g_stop_requested = true;
  });
  Result<std::unique_ptr<ControlServer>> control = Status::IoError("not started");
  ControlServerOptions control_options;
  control_options.path = config.control_path;
  (*loop)->run_sync([&] { control = ControlServer::Start((*loop)->loop(), **service, control_options); });
  if (!control.ok()) {
    Status closed = Shutdown(ublk.get(), **server, **service);
    (void)closed;
    recorder.reset();
    service->reset();
    return fail("cannot open control socket", control.status());
  }

  auto metrics = StartMetrics(config, **loop, **service);
  if (!metrics.ok()) {
    (*loop)->run_sync([&] { control->reset(); });
    Status closed = Shutdown(ublk.get(), **server, **service);
    (void)closed;
    recorder.reset();
    service->reset();
    return fail("cannot serve metrics on " + config.metrics_listen, metrics.status());
  }

  if (!config.pidfile.empty()) std::ofstream(config.pidfile) << getpid() << "\n";
  LogInfo("start", {{"cache", config.cache_path},
                    {"core", (*service)->status().core_path},
                    {"export", config.socket_path},
                    {"control", config.control_path},
                    {"metrics", config.metrics_listen},
                    {"mode", std::string(ModeName((*service)->mode()))},
                    {"pid", std::to_string(getpid())}});
  daemon.ready();

  WaitForStop(signals);
  Status closed = Shutdown(ublk.get(), **server, **service);
  if (stop_reply) (*loop)->run_sync([&] { stop_reply(closed); });
  (*loop)->run_sync([&] {
    control->reset();
    metrics->reset();
  });
  // The devices go first: a FileDevice unregisters from every loop that used it, and the NBD
  // and ublk servers' loops are among them.
  recorder.reset();
  service->reset();
  ublk.reset();
  server->reset();
  if (!config.pidfile.empty()) unlink(config.pidfile.c_str());
  if (!closed.ok()) {
    LogError("stop", {{"cache", config.cache_path}, {"clean", "false"}, {"error", closed.ToString()}});
    return 1;
  }
  LogInfo("stop", {{"cache", config.cache_path}, {"clean", "true"}});
  return 0;
}

}  // namespace
}  // namespace tiercache

int main(int argc, char** argv) {
  auto config = tiercache::ParseDaemonConfig(argc, argv);
  if (!config.ok()) {
    if (config.status().code() == tiercache::Status::Code::kNotFound) return 0;  // --help
    std::fprintf(stderr, "tiercached: %s\nRun tiercached --help for usage.\n",
                 config.status().message().c_str());
    return 2;
  }
  tiercache::Logger::instance().set_level(config->log_level);
  return tiercache::Run(*config);
}
