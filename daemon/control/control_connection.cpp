#include "daemon/control/control_connection.h"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace tiercache {
namespace {

bool IsBlank(const std::string& line) {
  return line.find_first_not_of(" \t\r") == std::string::npos;
}

}  // namespace

ControlConnection::ControlConnection(EventLoop& loop, int fd, ControlHandler& handler,
                                     Options options, CloseCallback on_close)
    : loop_(loop),
      fd_(fd),
      handler_(handler),
      options_(options),
      on_close_(std::move(on_close)),
      input_(options.max_line_bytes) {}

ControlConnection::~ControlConnection() {
  if (fd_ < 0) return;
  loop_.unwatch_fd(fd_);
  ::close(fd_);
}

Status ControlConnection::start() {
  std::weak_ptr<ControlConnection> weak = weak_from_this();
  interest_ = EPOLLIN;
  return loop_.watch_fd(fd_, interest_, [weak](uint32_t events) {
    if (auto self = weak.lock()) self->on_events(events);
  });
}

void ControlConnection::reject(const ControlJson& response) {
  close_after_output_ = true;
  queue_output(ToLine(response));
  if (fd_ >= 0) update_interest();
}

void ControlConnection::close_now() {
  write_output();
  close();
}

void ControlConnection::on_events(uint32_t events) {
  if (fd_ >= 0 && (events & EPOLLOUT)) {
    write_output();
    process_lines();  // requests held back by a backlog start once it has drained
  }
  if (fd_ >= 0 && (events & EPOLLIN)) read_input();
  // Both directions are gone: nobody will read replies any more.
  if (fd_ >= 0 && (events & (EPOLLHUP | EPOLLERR))) close();
  if (fd_ >= 0) update_interest();
}

void ControlConnection::read_input() {
  char buf[16 * 1024];
  ssize_t n = ::recv(fd_, buf, sizeof buf, MSG_DONTWAIT);
  if (n > 0) {
    input_.append(std::string_view(buf, size_t(n)));
  } else if (n == 0) {
    eof_ = true;
  } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
    return close();
  } else {
    return;
  }
  process_lines();
}

void ControlConnection::process_lines() {
  if (processing_) return;
  processing_ = true;
  while (fd_ >= 0 && active_request_ == 0 && !close_after_output_ && !output_backlogged()) {
    std::string line;
    LineBuffer::Next next = input_.next(&line);
    if (next == LineBuffer::Next::kTooLong) {
      close_after_output_ = true;
      queue_output(ToLine(ErrorResponse(Status::InvalidArgument(
          "request line longer than " + std::to_string(options_.max_line_bytes) + " bytes"))));
      break;
    }
    if (next == LineBuffer::Next::kNeedMore) {
      if (!eof_) break;
      line = input_.take_rest();  // an unterminated last request
      if (IsBlank(line)) break;
    }
    if (!IsBlank(line)) start_request(line);
  }
  processing_ = false;
  if (fd_ >= 0 && eof_ && active_request_ == 0 && input_.buffered() == 0 &&
      !close_after_output_) {
    close_after_output_ = true;
    write_output();  // closes once everything is written
  }
}

void ControlConnection::start_request(const std::string& line) {
  Result<ControlRequest> request = ParseControlRequest(line);
  if (!request.ok()) return queue_output(ToLine(ErrorResponse(request.status())));
  uint64_t id = next_request_id_++;
  active_request_ = id;
  std::weak_ptr<ControlConnection> weak = weak_from_this();
  handler_.execute(*request, [weak, id](const ControlJson& response, bool final) {
    if (auto self = weak.lock()) self->on_reply(id, response, final);
  });
}

void ControlConnection::on_reply(uint64_t request_id, const ControlJson& response, bool final) {
  if (fd_ < 0 || request_id != active_request_) return;
  if (!final && output_.size() > options_.progress_backlog_bytes) return;
  queue_output(ToLine(response));
  if (!final || fd_ < 0) return;
  active_request_ = 0;
  process_lines();
  if (fd_ >= 0) update_interest();
}

void ControlConnection::queue_output(const std::string& data) {
  output_ += data;
  write_output();
}

void ControlConnection::write_output() {
  while (fd_ >= 0 && !output_.empty()) {
    ssize_t n = ::send(fd_, output_.data(), output_.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      output_.erase(0, size_t(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return;
    } else {
      return close();  // EPIPE, ECONNRESET: the client is gone
    }
  }
  if (fd_ >= 0 && close_after_output_) close();
}

void ControlConnection::update_interest() {
  uint32_t want = 0;
  if (!eof_ && active_request_ == 0 && !close_after_output_ && !output_backlogged()) {
    want |= EPOLLIN;
  }
  if (!output_.empty()) want |= EPOLLOUT;
  if (want == interest_) return;
  interest_ = want;
  if (!loop_.modify_fd(fd_, want).ok()) close();
}

void ControlConnection::close() {
  if (fd_ < 0) return;
  loop_.unwatch_fd(fd_);
  ::close(fd_);
  fd_ = -1;
  output_.clear();
  CloseCallback on_close = std::move(on_close_);
  on_close_ = nullptr;
  if (on_close) on_close(this);
}

}  // namespace tiercache
