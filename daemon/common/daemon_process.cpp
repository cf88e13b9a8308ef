#include "daemon/common/daemon_process.h"

#include <pthread.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/file.h>
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
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Status::IoError("cannot write pidfile " + path);
  if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
    std::string holder;
    std::getline(std::ifstream(path), holder);
    close(fd);
    return Status::Busy("pidfile " + path + " is held by running process " +
                        (holder.empty() ? "?" : holder) +
                        " (another daemon): give this one its own --pidfile");
  }
  const std::string pid = std::to_string(getpid()) + "\n";
  if (ftruncate(fd, 0) < 0 || pwrite(fd, pid.data(), pid.size(), 0) != ssize_t(pid.size())) {
    close(fd);
    return Status::IoError("cannot write pidfile " + path);
  }
  pidfile_ = path;
  pidfile_fd_ = fd;
  return Status::Ok();
}

void DaemonProcess::RemovePidfile() {
  if (pidfile_.empty()) return;
  unlink(pidfile_.c_str());  // while the flock is held: no other daemon's file is removed
  close(pidfile_fd_);
  pidfile_fd_ = -1;
  pidfile_.clear();
}

}  // namespace tiercache
