#include "tools/control_client.h"

#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>

#include "daemon/control/unix_socket.h"

namespace tiercache {

Result<std::unique_ptr<ControlClient>> ControlClient::Connect(const std::string& path) {
  Result<int> fd = ConnectUnix(path);
  if (!fd.ok()) return fd.status();
  return std::unique_ptr<ControlClient>(new ControlClient(*fd, path));
}

ControlClient::~ControlClient() { ::close(fd_); }

void ControlClient::set_reply_timeout(std::chrono::milliseconds timeout) {
  timeval tv{.tv_sec = timeout.count() / 1000,
             .tv_usec = static_cast<suseconds_t>(timeout.count() % 1000 * 1000)};
  ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

Status ControlClient::send_line(const std::string& line) {
  size_t done = 0;
  while (done < line.size()) {
    ssize_t n = ::send(fd_, line.data() + done, line.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::FromErrno(errno, "send to " + path_);
    done += size_t(n);
  }
  return Status::Ok();
}

Result<std::string> ControlClient::read_line() {
  for (;;) {
    size_t newline = buffer_.find('\n');
    if (newline != std::string::npos) {
      std::string line = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      return line;
    }
    if (buffer_.size() > kMaxReplyBytes) {
      return Status::IoError("reply from " + path_ + " is longer than 16 MiB");
    }
    char chunk[16 * 1024];
    ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::FromErrno(errno, "receive from " + path_);
    if (n == 0) {
      return Status::IoError("tiercached closed the connection at " + path_ +
                             " before answering");
    }
    buffer_.append(chunk, size_t(n));
  }
}

Result<ControlJson> ControlClient::call(const ControlJson& request,
                                        const ProgressCallback& on_progress) {
  TC_RETURN_IF_ERROR(send_line(ToLine(request)));
  for (;;) {
    Result<std::string> line = read_line();
    if (!line.ok()) return line.status();
    ControlJson reply = ControlJson::parse(*line, nullptr, /*allow_exceptions=*/false);
    if (reply.is_discarded() || !reply.is_object()) {
      return Status::IoError("unexpected reply from " + path_ + ": " + line->substr(0, 200));
    }
    if (reply.contains("progress") && !reply.contains("ok")) {
      if (on_progress) on_progress(reply);
      continue;
    }
    if (!reply.contains("ok") || !reply["ok"].is_boolean()) {
      return Status::IoError("reply from " + path_ + " lacks \"ok\": " + line->substr(0, 200));
    }
    return reply;
  }
}

}  // namespace tiercache
