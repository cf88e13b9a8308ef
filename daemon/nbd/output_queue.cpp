#include "daemon/nbd/output_queue.h"

#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace tiercache::nbd {

void OutputQueue::Append(IoBuffer buf) {
  size_t length = buf.size();
  Append(std::move(buf), length);
}

void OutputQueue::Append(IoBuffer buf, size_t length) {
  if (length == 0) return;
  bytes_ += length;
  Push(Chunk{std::move(buf), length, 0, false});
}

void OutputQueue::Push(Chunk chunk) {
  if (chunks_.full()) chunks_.set_capacity(chunks_.capacity() * 2);
  chunks_.push_back(std::move(chunk));
}

void OutputQueue::AppendCopy(std::span<const std::byte> bytes) {
  if (bytes.empty()) return;
  bytes_ += bytes.size();
  if (!chunks_.empty()) {
    Chunk& last = chunks_.back();
    if (last.packed && last.buf.size() - last.length >= bytes.size()) {
      std::memcpy(last.buf.data() + last.length, bytes.data(), bytes.size());
      last.length += bytes.size();
      return;
    }
  }
  Chunk chunk{IoBuffer::Allocate(std::max(kSmallChunk, bytes.size())), bytes.size(), 0, true};
  std::memcpy(chunk.buf.data(), bytes.data(), bytes.size());
  Push(std::move(chunk));
}

void OutputQueue::Consume(size_t n) {
  bytes_ -= n;
  while (n > 0) {
    Chunk& front = chunks_.front();
    size_t left = front.length - front.sent;
    if (n < left) {
      front.sent += n;
      return;
    }
    n -= left;
    chunks_.pop_front();
  }
}

size_t OutputQueue::Gather(std::span<iovec> iov) const {
  size_t count = 0;
  for (auto it = chunks_.begin(); it != chunks_.end() && count < iov.size(); ++it, ++count) {
    iov[count].iov_base = const_cast<std::byte*>(it->buf.data()) + it->sent;  // sent, not written
    iov[count].iov_len = it->length - it->sent;
  }
  return count;
}

Result<bool> OutputQueue::Flush(int fd) {
  constexpr size_t kMaxIov = 64;
  iovec iov[kMaxIov];
  while (!chunks_.empty()) {
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = Gather(iov);
    ssize_t n = sendmsg(fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return false;
      return Status::FromErrno(errno, "send");
    }
    Consume(size_t(n));
  }
  return true;
}

}  // namespace tiercache::nbd
