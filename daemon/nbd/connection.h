// Connection: one NBD client socket driven by an event loop (non-blocking, level-triggered
// watch_fd). Reads bytes into a buffer, runs the Handshake, then parses requests, validates
// them (protocol.h) and hands them to a RequestExecutor; many requests are in flight at once
// and replies go out in completion order, buffered in an OutputQueue and flushed in batches
// when the socket is writable. Where the loop has an io_uring (LoopRing) the socket's receives
// and sends are operations on it (RingSocket) instead of readiness events and syscalls.
// Shared ownership: the server's table and every in-flight request hold a shared_ptr, so the
// buffers the Device writes into outlive a closed socket. Loop-thread only, except as noted.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "cachelib/common/event_loop.h"
#include "cachelib/device/device.h"
#include "daemon/nbd/export_info.h"
#include "daemon/nbd/handshake.h"
#include "daemon/nbd/output_queue.h"
#include "daemon/nbd/protocol.h"
#include "daemon/nbd/request_executor.h"
#include "daemon/nbd/ring_socket.h"

namespace tiercache::nbd {

struct ConnectionOptions {
  // Requests executing at once; more stay unread in the socket. Default 256, must be > 0.
  size_t max_in_flight = 256;
  // Bytes of in-flight requests before reading pauses (a single larger request still runs
  // alone). READ and WRITE count their length (the data buffers they hold); TRIM,
  // WRITE_ZEROES and CACHE count min(length, range_chunk_bytes), the most device work they
  // have under way at once. Default 64 MiB.
  uint64_t max_in_flight_bytes = 64u << 20;
  // TRIM, WRITE_ZEROES and CACHE longer than this reach the Device as chunks of at most this
  // many bytes (rounded down to the block size), each sent once the previous one completed;
  // one reply at the end. Default 64 MiB, must be > 0.
  uint64_t range_chunk_bytes = 64u << 20;
  // A client that has not entered the transmission phase this long after connecting is
  // disconnected. Default 10 s, must be > 0.
  Nanos handshake_timeout = std::chrono::seconds(10);
  // Reply bytes queued before reading, and starting requests already read, pause. Default
  // 64 MiB.
  size_t max_queued_output = 64u << 20;
  // Socket send buffer: room for whole large READ replies, so one sendmsg takes a 1 MiB reply
  // instead of a fill-and-wait per ~200 KiB (each wait a wake-up of both sides). Asked with
  // SO_SNDBUF (capped by net.core.wmem_max), then SO_SNDBUFFORCE when the cap cut it and the
  // process may exceed it (CAP_NET_ADMIN, e.g. root). 0 keeps the system default. Default 4 MiB.
  int send_buffer = 4 << 20;
  // How long a draining connection may take to write its last replies. Default 10 s.
  Nanos drain_timeout = std::chrono::seconds(10);
  // Receive and send as operations on the loop's shared io_uring (LoopRing), so they reach
  // the kernel in the io_uring_enter that carries the round's disk operations and come back
  // through the same wake-up. Where io_uring is refused the socket falls back to epoll
  // readiness and recv/sendmsg, as it does when this is false. Default true.
  bool ring_socket = true;
  // Log opens and normal closes too, not only protocol errors (stderr).
  bool verbose = false;
};

class Connection : public std::enable_shared_from_this<Connection>, private RingSocket::Owner {
 public:
  // Called once on the loop thread after the socket is closed and no request is in flight.
  using FinishedFn = std::function<void(Connection*)>;

  // Takes ownership of `fd`, a connected non-blocking socket. `device` and `info` must
  // outlive the connection.
  Connection(uint64_t id, int fd, EventLoop& loop, Device& device, const ExportInfo& info,
             ConnectionOptions options, FinishedFn on_finished);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Sends the greeting and starts watching the socket. On error the connection is closed.
  void Start();
  // Graceful stop: reads nothing more, finishes in-flight requests, writes their replies
  // (bounded by drain_timeout), then closes. A connection still negotiating closes at once.
  void Shutdown();

  uint64_t id() const { return id_; }
  // Whether the socket runs on the loop's ring (known once Start() ran).
  bool on_ring() const { return ring_ != nullptr; }

 private:
  enum class Phase { kHandshake, kTransmission, kDraining, kClosed };
  enum class Rx { kHeader, kPayload, kSkip };  // transmission input state

  void SizeSendBuffer();
  void OnEvents(uint32_t events);
  void OnReadable();
  ssize_t Receive();
  // Where the next receive goes: straight into a large payload, or the input buffer's free
  // tail (empty when it is full of unparsed input).
  std::span<std::byte> ReceiveTarget();
  void CountReceived(size_t n, const std::byte* target);
  void ReceiveOnRing();
  void SendOnRing();
  void OnReceived(int32_t res) override;
  void OnSent(int32_t res) override;
  void OnEndOfStream();
  // Keeps this connection alive while the ring has its operations, and lets go when idle.
  void HoldForRing();
  std::shared_ptr<Connection> LetGoOfRing();
  // Buffers the kernel may still be filling or sending from must not be freed yet.
  bool RingBusy() const { return ring_ && !ring_->idle(); }
  void ProcessInput();
  bool HandshakeStep();
  bool TransmissionStep();
  bool StartRequest();
  bool ContinuePayload();
  bool ContinueSkip();
  void Dispatch(IoBuffer payload);
  void OnReply(IoBuffer reply, uint64_t cost);

  void QueueReply(IoBuffer reply);
  void ScheduleFlush();
  void FlushOutput();
  void AfterIo();
  void UpdateInterest();
  bool WantRead() const;
  // max_queued_output reached: neither reading nor starting requests already read goes on.
  bool RepliesBacklogged() const { return out_.bytes() >= options_.max_queued_output; }

  void OnHandshakeTimeout();
  void BeginDrain(const std::string& reason, bool error);
  void Close(const std::string& reason, bool error);
  void MaybeFinish();
  // Verbose lines at info; `error` lines at warn, at most ten a second for all connections.
  void Log(const std::string& message, bool error = false) const;

  std::span<const std::byte> buffered() const {
    return {in_.data() + in_start_, in_end_ - in_start_};
  }

  const uint64_t id_;
  int fd_;
  EventLoop& loop_;
  Device& device_;
  const ExportInfo& info_;
  const ConnectionOptions options_;
  FinishedFn on_finished_;
  std::unique_ptr<RingSocket> ring_;  // null: epoll and syscalls
  std::shared_ptr<Connection> ring_hold_;  // set while ring_ has operations in the kernel

  Phase phase_ = Phase::kHandshake;
  std::unique_ptr<Handshake> handshake_;
  Negotiated negotiated_;
  std::unique_ptr<RequestExecutor> executor_;

  IoBuffer in_;
  size_t in_start_ = 0;
  size_t in_end_ = 0;
  Rx rx_ = Rx::kHeader;
  CheckedRequest current_;  // the request whose payload is being read or skipped
  IoBuffer payload_;
  size_t payload_done_ = 0;
  const std::byte* receive_target_ = nullptr;  // where the ring's receive in flight writes

  OutputQueue out_;
  size_t in_flight_ = 0;
  uint64_t in_flight_bytes_ = 0;  // Cost() of requests started and not yet answered
  uint32_t interest_ = 0;
  bool socket_full_ = false;
  bool flush_posted_ = false;
  bool processing_ = false;
  bool finished_ = false;
  EventLoop::TimerId drain_timer_ = 0;
  EventLoop::TimerId handshake_timer_ = 0;
};

}  // namespace tiercache::nbd
