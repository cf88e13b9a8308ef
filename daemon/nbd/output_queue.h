// OutputQueue: bytes waiting to be written to a non-blocking socket. Large replies are queued
// by ownership (no copy); small ones are packed into shared chunks. Flush() writes with one
// gathered sendmsg per round until the socket would block (or, for a ring, Gather() and Consume()
// around an asynchronous sendmsg).
// Owned by one connection; not thread-safe.
#pragma once

#include <boost/circular_buffer.hpp>
#include <sys/uio.h>

#include <cstddef>
#include <span>

#include "cachelib/common/status.h"
#include "daemon/nbd/io_buffer.h"

namespace tiercache::nbd {

class OutputQueue {
 public:
  // Queues all of `buf` (taking ownership), or its first `length` bytes.
  void Append(IoBuffer buf);
  void Append(IoBuffer buf, size_t length);
  // Copies `bytes` into the queue (packed with neighbouring small writes).
  void AppendCopy(std::span<const std::byte> bytes);

  bool empty() const { return chunks_.empty(); }
  // Bytes queued and not yet written.
  size_t bytes() const { return bytes_; }

  // Points `iov` at the oldest unwritten bytes, one entry per chunk; returns the entries used.
  // The bytes stay put until Consume() passes them, whatever is appended meanwhile.
  size_t Gather(std::span<iovec> iov) const;
  // Drops the first `n` unwritten bytes: the socket took them. REQUIRES: n <= bytes().
  void Consume(size_t n);

  // Writes as much as `fd` accepts without blocking. Returns true when the queue is empty,
  // false when the socket is full, or an error (the peer went away: EPIPE, ECONNRESET, ...).
  Result<bool> Flush(int fd);

 private:
  static constexpr size_t kSmallChunk = 16 * 1024;
  struct Chunk {
    IoBuffer buf;
    size_t length = 0;    // bytes of buf in use
    size_t sent = 0;      // bytes of buf already written
    bool packed = false;  // a shared chunk that AppendCopy may extend
  };
  void Push(Chunk chunk);

  // A ring that doubles when full and never shrinks: a std::deque allocates and frees a block
  // every few hundred replies; this allocates only while the queue reaches a new length.
  boost::circular_buffer<Chunk> chunks_{64};
  size_t bytes_ = 0;
};

}  // namespace tiercache::nbd
