// DaemonProcess: what tiercached and the test servers do around serving: block the stop signals
// before any thread starts, wait for one (or hear it on an event loop), write and remove a pidfile.
// Owns the signalfd and the pidfile it wrote. Thread-compatible: used from the main thread.
#pragma once

#include <signal.h>

#include <atomic>
#include <functional>
#include <string>

#include "cachelib/common/event_loop.h"
#include "cachelib/common/status.h"

namespace tiercache {

class DaemonProcess {
 public:
  // Blocks SIGTERM, SIGINT and SIGHUP in the calling thread, so every thread started later
  // inherits the mask and only this class sees them, and ignores SIGPIPE (a client that hangs up
  // is an error on its socket, not the end of the process). SIGHUP is blocked and never acted
  // on: a closed terminal does not stop a served volume. SIGUSR1 and SIGUSR2 are ignored: a
  // logrotate hook meant for another daemon does not stop it either.
  // REQUIRES: called before any thread is started.
  DaemonProcess();
  ~DaemonProcess();
  DaemonProcess(const DaemonProcess&) = delete;
  DaemonProcess& operator=(const DaemonProcess&) = delete;

  // Returns once SIGTERM or SIGINT arrives, or `stop_requested` is true (checked every 100 ms).
  void WaitForStop(const std::atomic<bool>& stop_requested) const;
  // Runs `stop` once on `loop` when SIGTERM or SIGINT arrives (a signalfd the loop watches).
  // `loop` must outlive this object; call from the loop's owner before running it.
  Status StopOnSignal(EventLoop& loop, std::function<void()> stop);

  // Writes this process's pid and a newline to `path` and holds an exclusive flock on it until
  // RemovePidfile() removes it: Busy, changing nothing, when another live process holds it (a
  // second daemon given the same --pidfile must not take over, nor remove, a running one's).
  Status WritePidfile(const std::string& path);
  void RemovePidfile();

 private:
  sigset_t stop_signals_;  // SIGTERM, SIGINT
  int signal_fd_ = -1;
  std::string pidfile_;
  int pidfile_fd_ = -1;  // holds the flock
};

}  // namespace tiercache
