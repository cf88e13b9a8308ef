#include "daemon/common/daemon_process.h"

#include <pthread.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>

namespace tiercache {

DaemonProcess::DaemonProcess() {
  sigemptyset(&stop_signals_);
  sigaddset(&stop_signals_, SIGTERM);
  sigaddset(&stop_signals_, SIGINT);
  sigset_t blocked = stop_signals_;
  sigaddset(&blocked, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &blocked, nullptr);
  signal(SIGPIPE, SIG_IGN);
  // Other daemons take these to reopen logs or report state (logrotate hooks send them); by
  // default they would end the process and take the served volume with it.
  signal(SIGUSR1, SIG_IGN);
  signal(SIGUSR2, SIG_IGN);
}

DaemonProcess::~DaemonProcess() {
  if (signal_fd_ >= 0) close(signal_fd_);
}

void DaemonProcess::WaitForStop(const std::atomic<bool>& stop_requested) const {
  const timespec tick{0, 100'000'000};
  while (!stop_requested.load()) {
    // SIGHUP stays pending (blocked, not in the set): it neither wakes nor stops us.
    int sig = sigtimedwait(&stop_signals_, nullptr, &tick);
    if (sig == SIGTERM || sig == SIGINT) return;
  }
}

Status DaemonProcess::StopOnSignal(EventLoop& loop, std::function<void()> stop) {
  if (signal_fd_ >= 0) return Status::InvalidArgument("StopOnSignal: already watching");
  signal_fd_ = signalfd(-1, &stop_signals_, SFD_NONBLOCK | SFD_CLOEXEC);
  if (signal_fd_ < 0) return Status::FromErrno(errno, "signalfd");
  const int fd = signal_fd_;
  loop.post([&loop, fd, stop = std::move(stop)]() mutable {
    Status s = loop.watch_fd(fd, EPOLLIN, [&loop, fd, stop](uint32_t) {
      signalfd_siginfo info;
      if (read(fd, &info, sizeof info) != sizeof info) return;
      loop.unwatch_fd(fd);
      stop();
    });
    if (!s.ok()) stop();  // cannot hear a signal: stop rather than run unstoppable
  });
  return Status::Ok();
}

Status DaemonProcess::WritePidfile(const std::string& path) {
  std::ofstream out(path, std::ios::trunc);
  out << getpid() << "\n";
  out.flush();
  if (!out) return Status::IoError("cannot write pidfile " + path);
  pidfile_ = path;
  return Status::Ok();
}

void DaemonProcess::RemovePidfile() {
  if (pidfile_.empty()) return;
  unlink(pidfile_.c_str());
  pidfile_.clear();
}

}  // namespace tiercache
