#include "daemon/nbd/ring_socket.h"

#include <algorithm>
#include <cassert>

namespace tiercache::nbd {

Result<std::unique_ptr<RingSocket>> RingSocket::Create(EventLoop& loop, int fd, Owner& owner) {
  auto ring = LoopRing::ForLoop(loop);
  if (!ring.ok()) return ring.status();
  return std::unique_ptr<RingSocket>(new RingSocket(std::move(ring).value(), fd, owner));
}

RingSocket::RingSocket(std::shared_ptr<LoopRing> ring, int fd, Owner& owner)
    : ring_(std::move(ring)), fd_(fd), owner_(owner) {
  client_id_ = ring_->attach(this);
}

RingSocket::~RingSocket() {
  assert(idle() && "RingSocket destroyed with operations in the kernel");
  ring_->detach(client_id_);
}

void RingSocket::Receive(std::span<std::byte> buf) {
  assert(!receiving_);
  receiving_ = true;
  io_uring_sqe* sqe = ring_->get_sqe();
  io_uring_prep_recv(sqe, fd_, buf.data(), buf.size(), 0);
  LoopRing::label(sqe, client_id_, kReceive);
}

void RingSocket::Send(std::span<const iovec> iov) {
  assert(!sending_ && !iov.empty() && iov.size() <= kMaxIov);
  sending_ = true;
  std::copy(iov.begin(), iov.end(), iov_);
  msg_ = msghdr{};
  msg_.msg_iov = iov_;
  msg_.msg_iovlen = iov.size();
  io_uring_sqe* sqe = ring_->get_sqe();
  // MSG_NOSIGNAL: a peer that went away is an EPIPE result, not a SIGPIPE for the daemon.
  io_uring_prep_sendmsg(sqe, fd_, &msg_, MSG_NOSIGNAL);
  LoopRing::label(sqe, client_id_, kSend);
}

void RingSocket::Abort() {
  ring_->submit();
  ::shutdown(fd_, SHUT_RDWR);
}

void RingSocket::on_completion(uint32_t tag, int32_t res) {
  if (tag == kReceive) {
    receiving_ = false;
    owner_.OnReceived(res);
  } else {
    sending_ = false;
    owner_.OnSent(res);
  }
}

}  // namespace tiercache::nbd
