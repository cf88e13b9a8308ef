// Daemonizer: detaches tiercached from the terminal (fork + setsid) while letting the parent wait
// until the child is serving, so `tiercached ...` returning 0 means the sockets are ready, and a
// startup error is printed by the command the user ran. With foreground, nothing forks.
// It also tells a service manager the same milestones (sd_notify(3): STATUS=, READY=1 once
// serving, STOPPING=1); without $NOTIFY_SOCKET those messages are no-ops. Main thread only.
#pragma once

#include <string>

namespace tiercache {

class Daemonizer {
 public:
  // Forks unless foreground. Only the child returns (the parent exits with the child's verdict).
  // REQUIRES: called before any thread is started.
  explicit Daemonizer(bool foreground);
  // Tells the waiting parent: ready (exit 0), and the service manager READY=1. Detached, the
  // caller's stderr is let go then: later events go to syslog (LogToSyslog) ...
  void ready();
  // ... or failed with `message` (parent prints it, exits 1). Also printed here.
  void failed(const std::string& message);
  // Shutdown has begun (STOPPING=1 to the service manager).
  void stopping();

 private:
  int pipe_fd_ = -1;
};

}  // namespace tiercache
