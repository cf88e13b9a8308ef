// RingSocket: one connected socket's receives and sends as operations on the loop's shared
// io_uring (LoopRing). They reach the kernel in the io_uring_enter that also carries the round's
// disk operations and come back through the same wake-up, where the epoll path pays a readiness
// event and a recv or sendmsg call each. At most one receive and one send are in flight.
// Loop-thread only. The owner keeps the buffers, the socket and itself alive until idle().
#pragma once

#include <sys/socket.h>
#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "cachelib/common/event_loop.h"
#include "cachelib/device/loop_ring.h"

namespace tiercache::nbd {

class RingSocket final : private LoopRing::Client {
 public:
  // Told of each finished operation, on the loop: the byte count, 0 at the end of the stream
  // (receive), or -errno.
  class Owner {
   public:
    virtual void OnReceived(int32_t res) = 0;
    virtual void OnSent(int32_t res) = 0;

   protected:
    ~Owner() = default;
  };

  // Gathered buffers one Send() takes at most.
  static constexpr size_t kMaxIov = 64;

  // Joins `loop`'s ring. Errors: as LoopRing::ForLoop (io_uring refused, a loop without fds).
  // REQUIRES: on `loop`'s thread; `fd` a connected socket that outlives the operations.
  static Result<std::unique_ptr<RingSocket>> Create(EventLoop& loop, int fd, Owner& owner);
  // REQUIRES: idle().
  ~RingSocket();
  RingSocket(const RingSocket&) = delete;
  RingSocket& operator=(const RingSocket&) = delete;

  // Receives up to buf.size() bytes into `buf`. REQUIRES: !receiving().
  void Receive(std::span<std::byte> buf);
  // Sends the bytes `iov` points to (the array is copied; the bytes must stay until OnSent).
  // REQUIRES: !sending(), 0 < iov.size() <= kMaxIov.
  void Send(std::span<const iovec> iov);

  // Makes the operations in flight end now (shutdown(2)): a receive with end of stream, a send
  // with EPIPE. Any not yet given to the kernel goes first, so none can name the fd number
  // after the owner closed it (and a new socket took the number).
  void Abort();

  bool receiving() const { return receiving_; }
  bool sending() const { return sending_; }
  bool idle() const { return !receiving_ && !sending_; }

 private:
  enum Tag : uint32_t { kReceive = 0, kSend = 1 };
  RingSocket(std::shared_ptr<LoopRing> ring, int fd, Owner& owner);
  void on_completion(uint32_t tag, int32_t res) override;

  std::shared_ptr<LoopRing> ring_;
  uint32_t client_id_ = 0;
  const int fd_;
  Owner& owner_;
  bool receiving_ = false;
  bool sending_ = false;
  iovec iov_[kMaxIov];
  msghdr msg_{};
};

}  // namespace tiercache::nbd
