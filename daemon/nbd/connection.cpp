#include "daemon/nbd/connection.h"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "cachelib/common/clock.h"
#include "cachelib/common/log_throttle.h"
#include "cachelib/common/logger.h"
#include "cachelib/common/pooled_once.h"
#include "daemon/nbd/nbd_constants.h"

namespace tiercache::nbd {
namespace {

// Input buffer: holds the largest handshake option, and many small requests per recv.
constexpr size_t kInputBuffer = 256 * 1024;
// Payload remainders at least this large are received straight into the payload buffer.
constexpr size_t kDirectReceive = 64 * 1024;
// Reads per readiness event, so one busy client cannot starve the others on its loop.
constexpr int kReadsPerEvent = 8;

// What a request counts against max_in_flight_bytes: the data buffer a READ or WRITE holds,
// or the device work a TRIM, WRITE_ZEROES or CACHE has under way at once (one chunk).
uint64_t Cost(const CheckedRequest& r, uint64_t range_chunk_bytes) {
  if (!r.status.ok()) return 0;
  switch (r.command.op) {
    case Op::kRead:
    case Op::kWrite:
      return r.command.length;
    case Op::kTrim:
    case Op::kWriteZeroes:
    case Op::kCache:
      return std::min<uint64_t>(r.command.length, range_chunk_bytes);
    default:
      return 0;
  }
}

}  // namespace

Connection::Connection(uint64_t id, int fd, EventLoop& loop, Device& device, const ExportInfo& info,
                       ConnectionOptions options, FinishedFn on_finished)
    : id_(id),
      fd_(fd),
      loop_(loop),
      device_(device),
      info_(info),
      options_(options),
      on_finished_(std::move(on_finished)),
      handshake_(std::make_unique<Handshake>(info)),
      in_(IoBuffer::Allocate(kInputBuffer)) {}

Connection::~Connection() {
  if (fd_ >= 0) ::close(fd_);
}

void Connection::Log(const std::string& message, bool error) const {
  const std::string id = std::to_string(id_);
  if (!error) return LogInfo("nbd_connection", {{"connection", id}, {"what", message}});
  // A client resetting connections in a loop must not flood the log: ten lines a second, for all
  // connections, each saying how many were left out before it.
  static LogThrottle throttle(10);
  uint64_t unlogged = 0;
  if (!throttle.due(SteadyClock::instance().now(), &unlogged)) return;
  LogWarn("nbd_connection_error",
          {{"connection", id}, {"error", message}, {"unlogged", std::to_string(unlogged)}});
}

void Connection::Start() {
  if (options_.verbose) Log("opened");
  if (options_.ring_socket) {
    auto ring = RingSocket::Create(loop_, fd_, *this);
    if (ring.ok()) {
      ring_ = std::move(ring).value();
    } else if (options_.verbose) {
      Log("socket on epoll: " + ring.status().ToString(), true);
    }
  }
  if (!ring_) {
    Status s = loop_.watch_fd(fd_, EPOLLIN, [this](uint32_t events) { OnEvents(events); });
    if (!s.ok()) {
      Log("cannot watch socket: " + s.ToString(), true);
      ::close(fd_);
      fd_ = -1;
      phase_ = Phase::kClosed;
      MaybeFinish();
      return;
    }
    interest_ = EPOLLIN;
  }
  std::weak_ptr<Connection> weak = weak_from_this();
  handshake_timer_ = loop_.schedule_after(options_.handshake_timeout, [weak] {
    if (auto self = weak.lock()) self->OnHandshakeTimeout();
  });
  if (options_.send_buffer > 0) SizeSendBuffer();
  Bytes greeting;
  handshake_->Start(greeting);
  out_.AppendCopy(greeting);
  FlushOutput();
  AfterIo();
}

void Connection::SizeSendBuffer() {
  const int want = options_.send_buffer;
  ::setsockopt(fd_, SOL_SOCKET, SO_SNDBUF, &want, sizeof want);
  int got = 0;
  socklen_t len = sizeof got;
  ::getsockopt(fd_, SOL_SOCKET, SO_SNDBUF, &got, &len);
  if (got >= want) return;  // the kernel reports double what was asked, as bookkeeping room
  // Cut by net.core.wmem_max; without CAP_NET_ADMIN this fails and the smaller buffer only
  // costs more wake-ups for large replies.
  if (::setsockopt(fd_, SOL_SOCKET, SO_SNDBUFFORCE, &want, sizeof want) != 0 && options_.verbose) {
    Log("send buffer " + std::to_string(got) + " bytes (net.core.wmem_max); wanted " +
        std::to_string(want));
  }
}

void Connection::Shutdown() {
  auto self = shared_from_this();
  if (phase_ == Phase::kHandshake) {
    Close("server shutting down during the handshake", false);
    return;
  }
  BeginDrain("server shutting down", false);
  AfterIo();
}

void Connection::OnEvents(uint32_t events) {
  auto self = shared_from_this();
  if (events & EPOLLERR) {
    Close("socket error", false);
    return;
  }
  if (events & EPOLLOUT) FlushOutput();
  if (events & (EPOLLIN | EPOLLHUP)) OnReadable();
  if ((events & EPOLLHUP) && phase_ != Phase::kClosed) {
    // The peer is gone in both directions: nobody can read replies any more. In-flight
    // requests still finish on the device before the connection is released.
    Close("client hung up", false);
    return;
  }
  AfterIo();
}

bool Connection::WantRead() const {
  if (phase_ != Phase::kHandshake && phase_ != Phase::kTransmission) return false;
  if (RepliesBacklogged()) return false;
  // The payload of a request already started is always read; new requests wait for room.
  return rx_ != Rx::kHeader ||
         (in_flight_ < options_.max_in_flight && in_flight_bytes_ < options_.max_in_flight_bytes);
}

std::span<std::byte> Connection::ReceiveTarget() {
  if (phase_ == Phase::kTransmission && rx_ == Rx::kPayload && buffered().empty() &&
      payload_.size() - payload_done_ >= kDirectReceive) {
    return {payload_.data() + payload_done_, payload_.size() - payload_done_};
  }
  if (in_start_ == in_end_) in_start_ = in_end_ = 0;
  if (in_end_ == in_.size() && in_start_ > 0) {
    std::memmove(in_.data(), in_.data() + in_start_, in_end_ - in_start_);
    in_end_ -= in_start_;
    in_start_ = 0;
  }
  return {in_.data() + in_end_, in_.size() - in_end_};
}

void Connection::CountReceived(size_t n, const std::byte* target) {
  if (target == in_.data() + in_end_) {
    in_end_ += n;
  } else {
    payload_done_ += n;
  }
}

ssize_t Connection::Receive() {
  std::span<std::byte> target = ReceiveTarget();
  ssize_t n = ::recv(fd_, target.data(), target.size(), 0);
  if (n > 0) CountReceived(size_t(n), target.data());
  return n;
}

void Connection::OnEndOfStream() {
  if (phase_ == Phase::kHandshake) return Close("client closed during the handshake", false);
  BeginDrain("client closed the connection", false);
}

void Connection::OnReadable() {
  for (int i = 0; i < kReadsPerEvent && WantRead(); ++i) {
    if (in_end_ == in_.size() && in_start_ == 0) break;  // full of unparsed input
    ssize_t n = Receive();
    if (n == 0) return OnEndOfStream();
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      return Close(std::string("receive failed: ") + std::strerror(errno), true);
    }
    ProcessInput();
  }
}

void Connection::HoldForRing() {
  if (!ring_hold_) ring_hold_ = shared_from_this();
}

std::shared_ptr<Connection> Connection::LetGoOfRing() {
  std::shared_ptr<Connection> self = ring_hold_;  // alive until the caller returns
  if (ring_->idle()) ring_hold_.reset();
  return self;
}

void Connection::ReceiveOnRing() {
  if (ring_->receiving() || !WantRead()) return;
  std::span<std::byte> target = ReceiveTarget();
  if (target.empty()) return;  // full of unparsed input: requests must finish first
  receive_target_ = target.data();
  HoldForRing();
  ring_->Receive(target);
}

void Connection::OnReceived(int32_t res) {
  std::shared_ptr<Connection> self = LetGoOfRing();
  if (phase_ == Phase::kClosed) return MaybeFinish();
  if (res > 0) {
    // While draining, input is no longer parsed (and a payload target may be gone).
    if (phase_ != Phase::kDraining) {
      CountReceived(size_t(res), receive_target_);
      ProcessInput();
    }
  } else if (res == 0) {
    OnEndOfStream();
  } else if (res != -EINTR && res != -EAGAIN) {
    return Close(std::string("receive failed: ") + std::strerror(-res), true);
  }
  AfterIo();
}

void Connection::SendOnRing() {
  if (ring_->sending() || out_.empty()) return;
  iovec iov[RingSocket::kMaxIov];
  const size_t count = out_.Gather(iov);
  HoldForRing();
  ring_->Send({iov, count});
}

void Connection::OnSent(int32_t res) {
  std::shared_ptr<Connection> self = LetGoOfRing();
  if (phase_ == Phase::kClosed) return MaybeFinish();
  if (res >= 0) {
    out_.Consume(size_t(res));
  } else if (res != -EINTR && res != -EAGAIN) {
    return Close(Status::FromErrno(-res, "send").ToString(), false);
  }
  FlushOutput();
  AfterIo();
}

void Connection::ProcessInput() {
  if (processing_) return;  // a reply delivered inline while parsing: the outer loop goes on
  processing_ = true;
  for (;;) {
    bool progress = false;
    if (phase_ == Phase::kHandshake) {
      progress = HandshakeStep();
    } else if (phase_ == Phase::kTransmission) {
      progress = TransmissionStep();
    }
    if (!progress) break;
  }
  processing_ = false;
}

bool Connection::HandshakeStep() {
  Bytes out;
  size_t consumed = 0;
  Handshake::Outcome outcome = handshake_->Feed(buffered(), consumed, out);
  in_start_ += consumed;
  out_.AppendCopy(out);
  ScheduleFlush();
  switch (outcome) {
    case Handshake::Outcome::kNeedMore:
      return false;
    case Handshake::Outcome::kTransmission:
      negotiated_ = handshake_->negotiated();
      handshake_.reset();
      loop_.cancel(handshake_timer_);
      handshake_timer_ = 0;
      executor_ =
          std::make_unique<RequestExecutor>(device_, negotiated_, options_.range_chunk_bytes);
      phase_ = Phase::kTransmission;
      if (options_.verbose) Log("entered transmission");
      return true;
    case Handshake::Outcome::kClose:
      BeginDrain(handshake_->close_reason(), !handshake_->aborted());
      return false;
  }
  return false;
}

bool Connection::TransmissionStep() {
  switch (rx_) {
    case Rx::kHeader:
      return StartRequest();
    case Rx::kPayload:
      return ContinuePayload();
    case Rx::kSkip:
      return ContinueSkip();
  }
  return false;
}

bool Connection::StartRequest() {
  if (buffered().size() < kRequestHeaderSize || in_flight_ >= options_.max_in_flight) {
    return false;
  }
  // Replies the client has not taken bound the requests already read as well as the reading:
  // a client that pipelines READs and takes no reply would otherwise have every buffered one
  // answered into memory (the input buffer holds 9,362 28-byte headers, each asking for a reply
  // of up to 32 MiB).
  if (RepliesBacklogged()) return false;
  RequestHeader header = ParseRequestHeader(buffered());
  CheckedRequest checked = CheckRequest(header, info_, negotiated_);
  // Data buffers and device work are bounded per connection; one request of any size may
  // always run when nothing else is in flight.
  const uint64_t cost = Cost(checked, options_.range_chunk_bytes);
  if (in_flight_bytes_ > 0 && in_flight_bytes_ + cost > options_.max_in_flight_bytes) {
    return false;
  }
  in_start_ += kRequestHeaderSize;
  in_flight_bytes_ += cost;
  current_ = std::move(checked);
  if (current_.disconnect) {
    BeginDrain(current_.reason, true);
    return false;
  }
  if (current_.status.ok() && current_.command.op == Op::kDisc) {
    BeginDrain("client sent NBD_CMD_DISC", false);
    return false;
  }
  if (current_.payload == 0) {
    Dispatch(IoBuffer());
    return true;
  }
  if (current_.status.ok()) {
    payload_ = IoBuffer::AllocateAligned(0, current_.payload);  // O_DIRECT-ready WRITE data
    payload_done_ = 0;
    rx_ = Rx::kPayload;
  } else {
    payload_done_ = 0;
    rx_ = Rx::kSkip;
  }
  return true;
}

bool Connection::ContinuePayload() {
  size_t n = std::min(buffered().size(), payload_.size() - payload_done_);
  std::memcpy(payload_.data() + payload_done_, buffered().data(), n);
  in_start_ += n;
  payload_done_ += n;
  if (payload_done_ < payload_.size()) return false;
  rx_ = Rx::kHeader;
  Dispatch(std::move(payload_));
  return true;
}

bool Connection::ContinueSkip() {
  size_t n = std::min<size_t>(buffered().size(), current_.payload - payload_done_);
  in_start_ += n;
  payload_done_ += n;
  if (payload_done_ < current_.payload) return false;
  rx_ = Rx::kHeader;
  Dispatch(IoBuffer());
  return true;
}

void Connection::Dispatch(IoBuffer payload) {
  if (!current_.status.ok()) {
    QueueReply(executor_->ErrorFor(current_.command, current_.status));
    return;
  }
  ++in_flight_;
  const uint64_t cost = Cost(current_, options_.range_chunk_bytes);
  // Pooled: a shared_ptr and the cost are too big for std::function's inline buffer.
  executor_->Execute(current_.command, std::move(payload),
                     PooledOnce([self = shared_from_this(), cost](IoBuffer reply) {
                       self->OnReply(std::move(reply), cost);
                     }));
}

void Connection::OnReply(IoBuffer reply, uint64_t cost) {
  --in_flight_;
  in_flight_bytes_ -= cost;
  if (phase_ == Phase::kClosed) {
    MaybeFinish();
    return;
  }
  QueueReply(std::move(reply));
  if (!processing_) {
    // A slot freed up: requests already buffered may now start.
    if (phase_ == Phase::kTransmission) ProcessInput();
    AfterIo();
  }
}

void Connection::QueueReply(IoBuffer reply) {
  out_.Append(std::move(reply));
  ScheduleFlush();
}

void Connection::ScheduleFlush() {
  if (flush_posted_ || out_.empty()) return;
  flush_posted_ = true;
  // Posted, so every reply completed in this round of the loop goes out in one sendmsg.
  loop_.post(PooledOnce([self = shared_from_this()] {
    self->flush_posted_ = false;
    self->FlushOutput();
    self->AfterIo();
  }));
}

void Connection::FlushOutput() {
  if (phase_ == Phase::kClosed || out_.empty()) return;
  if (ring_) return SendOnRing();
  Result<bool> drained = out_.Flush(fd_);
  if (!drained.ok()) {
    Close(drained.status().ToString(), false);
    return;
  }
  socket_full_ = !*drained;
}

void Connection::AfterIo() {
  if (phase_ == Phase::kClosed) return MaybeFinish();
  if (phase_ == Phase::kDraining && in_flight_ == 0 && out_.empty()) {
    Close("drained", false);
    return;
  }
  if (WantRead() && !processing_ && !buffered().empty()) ProcessInput();
  if (phase_ != Phase::kClosed) UpdateInterest();
}

void Connection::UpdateInterest() {
  if (ring_) return ReceiveOnRing();
  uint32_t want = (WantRead() ? uint32_t(EPOLLIN) : 0u) | (socket_full_ ? uint32_t(EPOLLOUT) : 0u);
  if (want == interest_) return;
  Status s = loop_.modify_fd(fd_, want);
  if (!s.ok()) return Close("cannot update socket events: " + s.ToString(), true);
  interest_ = want;
}

void Connection::OnHandshakeTimeout() {
  handshake_timer_ = 0;
  if (phase_ != Phase::kHandshake) return;
  double seconds = std::chrono::duration<double>(options_.handshake_timeout).count();
  char reason[96];
  std::snprintf(reason, sizeof reason, "handshake not finished within %g s: disconnecting",
                seconds);
  Close(reason, true);
}

void Connection::BeginDrain(const std::string& reason, bool error) {
  if (phase_ == Phase::kDraining || phase_ == Phase::kClosed) return;
  if (error || options_.verbose) Log(reason, error);
  phase_ = Phase::kDraining;
  if (!ring_ || !ring_->receiving()) payload_ = IoBuffer();
  std::weak_ptr<Connection> weak = weak_from_this();
  drain_timer_ = loop_.schedule_after(options_.drain_timeout, [weak] {
    if (auto self = weak.lock()) self->Close("replies not taken within the drain timeout", true);
  });
}

void Connection::Close(const std::string& reason, bool error) {
  if (phase_ == Phase::kClosed) return;
  if (phase_ != Phase::kDraining && (error || options_.verbose)) Log(reason, error);
  if (options_.verbose) Log("closed");
  phase_ = Phase::kClosed;
  if (ring_) {
    // Operations in the kernel end now; their buffers stay until they have (MaybeFinish).
    if (RingBusy()) ring_->Abort();
  } else {
    loop_.unwatch_fd(fd_);
  }
  ::close(fd_);
  fd_ = -1;
  if (!RingBusy()) {
    out_ = OutputQueue();
    payload_ = IoBuffer();
  }
  MaybeFinish();
}

void Connection::MaybeFinish() {
  if (phase_ != Phase::kClosed || in_flight_ != 0 || finished_ || RingBusy()) return;
  finished_ = true;
  if (drain_timer_ != 0) loop_.cancel(drain_timer_);
  if (handshake_timer_ != 0) loop_.cancel(handshake_timer_);
  if (on_finished_) on_finished_(this);
}

}  // namespace tiercache::nbd
