#include "daemon/tiercached/daemonizer.h"

#include <fcntl.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "daemon/common/syslog_sink.h"

namespace tiercache {
namespace {

// Best effort: a service manager that cannot be told is no reason to stop serving.
void Notify(const std::string& state) { (void)sd_notify(0, state.c_str()); }

}  // namespace

Daemonizer::Daemonizer(bool foreground) {
  Notify("STATUS=opening the cache");
  if (foreground) return;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) < 0) {
    std::perror("tiercached: pipe");
    std::exit(1);
  }
  pid_t pid = fork();
  if (pid < 0) {
    std::perror("tiercached: fork");
    std::exit(1);
  }
  if (pid > 0) {  // parent: wait for the child's verdict
    close(fds[1]);
    std::string msg;
    char buf[512];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof buf)) > 0) msg.append(buf, size_t(n));
    if (msg == "ok") std::exit(0);
    std::fprintf(stderr, "%s\n", msg.empty() ? "tiercached: exited during startup" : msg.c_str());
    std::exit(1);
  }
  close(fds[0]);
  pipe_fd_ = fds[1];
  setsid();
  int devnull = open("/dev/null", O_RDWR);
  if (devnull >= 0) {
    dup2(devnull, STDIN_FILENO);
    dup2(devnull, STDOUT_FILENO);
    close(devnull);
  }
}

void Daemonizer::ready() {
  // Called once the NBD and control sockets accept: a unit ordered after this one finds them.
  Notify("READY=1\nSTATUS=serving");
  if (pipe_fd_ < 0) return;
  ssize_t n = write(pipe_fd_, "ok", 2);
  (void)n;
  close(pipe_fd_);
  pipe_fd_ = -1;
  // The caller's stderr stays open as long as anyone holds it: `out=$(tiercached ...)`, a pipe
  // or an ssh session would wait for the daemon to exit. Later events go to syslog instead.
  LogToSyslog("tiercached");
  int devnull = open("/dev/null", O_WRONLY);
  if (devnull >= 0) {
    dup2(devnull, STDERR_FILENO);
    close(devnull);
  }
}

void Daemonizer::failed(const std::string& message) {
  std::string status = "STATUS=" + message;
  std::replace(status.begin(), status.end(), '\n', ' ');  // one line: a newline starts a new field
  Notify(status);
  if (pipe_fd_ < 0) {  // foreground (or already reported): say it here
    std::fprintf(stderr, "%s\n", message.c_str());
    return;
  }
  ssize_t n = write(pipe_fd_, message.data(), message.size());
  (void)n;
  close(pipe_fd_);
  pipe_fd_ = -1;
}

void Daemonizer::stopping() {
  Notify("STOPPING=1\nSTATUS=stopping: closing the cache");
}

}  // namespace tiercache
