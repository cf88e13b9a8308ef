#include "cachelib/device/device.h"

#include <algorithm>
#include <cassert>
#include <cstdlib>
#include <memory>

#include "cachelib/common/event_loop.h"
#include "cachelib/common/pooled_once.h"

namespace tiercache {

Device::Device(std::string name, uint64_t size, uint32_t block_size, uint64_t max_io_bytes)
    : name_(std::move(name)), size_(size), block_size_(block_size), max_io_bytes_(max_io_bytes) {
  assert(block_size_ > 0 && (block_size_ & (block_size_ - 1)) == 0);
}

void Device::complete_later(IoCallback cb, Status status) {
  EventLoop* loop = EventLoop::current();
  assert(loop != nullptr && "device I/O must be submitted from an event loop");
  // Pooled: a closure this size would cost std::function a heap allocation per request.
  loop->post(PooledOnce(
      [cb = std::move(cb), status = std::move(status)]() mutable { cb(std::move(status)); }));
}

Status Device::check_range(uint64_t offset, uint64_t length, bool is_write) const {
  if (length == 0) return Status::InvalidArgument(name_ + ": zero-length request");
  if (offset % block_size_ != 0 || length % block_size_ != 0) {
    return Status::InvalidArgument(name_ + ": offset " + std::to_string(offset) + " length " +
                                   std::to_string(length) + " not aligned to " +
                                   std::to_string(block_size_) + " bytes");
  }
  // Overflow-safe form of offset + length > size.
  if (offset > size_ || length > size_ - offset) {
    std::string msg = name_ + ": range [" + std::to_string(offset) + ", +" +
                      std::to_string(length) + ") past the end (" + std::to_string(size_) +
                      " bytes)";
    return is_write ? Status::NoSpace(msg) : Status::InvalidArgument(msg);
  }
  return Status::Ok();
}

IoCallback Device::counting(IoCallback cb) {
  // Pooled: every implementation calls its callback exactly once.
  return PooledOnce([this, cb = std::move(cb)](Status s) {
    if (!s.ok()) stats_.errors.fetch_add(1, std::memory_order_relaxed);
    cb(std::move(s));
  });
}

void Device::read(uint64_t offset, std::span<std::byte> buf, IoCallback cb) {
  Status s = check_range(offset, buf.size(), false);
  if (s.ok() && buf.size() > max_io_bytes_) s = Status::InvalidArgument(name_ + ": read too large");
  if (!s.ok()) {
    stats_.rejected.fetch_add(1, std::memory_order_relaxed);
    return complete_later(std::move(cb), std::move(s));
  }
  stats_.reads.fetch_add(1, std::memory_order_relaxed);
  stats_.bytes_read.fetch_add(buf.size(), std::memory_order_relaxed);
  read_impl(offset, buf, counting(std::move(cb)));
}

void Device::write(uint64_t offset, std::span<const std::byte> buf, WriteFlags flags,
                   IoCallback cb) {
  Status s = check_range(offset, buf.size(), true);
  if (s.ok() && buf.size() > max_io_bytes_) s = Status::InvalidArgument(name_ + ": write too large");
  if (!s.ok()) {
    stats_.rejected.fetch_add(1, std::memory_order_relaxed);
    return complete_later(std::move(cb), std::move(s));
  }
  stats_.writes.fetch_add(1, std::memory_order_relaxed);
  stats_.bytes_written.fetch_add(buf.size(), std::memory_order_relaxed);
  write_impl(offset, buf, flags, counting(std::move(cb)));
}

void Device::flush(IoCallback cb) {
  stats_.flushes.fetch_add(1, std::memory_order_relaxed);
  flush_impl(counting(std::move(cb)));
}

void Device::discard(uint64_t offset, uint64_t length, IoCallback cb) {
  Status s = check_range(offset, length, false);
  if (!s.ok()) {
    stats_.rejected.fetch_add(1, std::memory_order_relaxed);
    return complete_later(std::move(cb), std::move(s));
  }
  stats_.discards.fetch_add(1, std::memory_order_relaxed);
  discard_impl(offset, length, counting(std::move(cb)));
}

void Device::write_zeroes(uint64_t offset, uint64_t length, WriteFlags flags, IoCallback cb) {
  Status s = check_range(offset, length, true);
  if (!s.ok()) {
    stats_.rejected.fetch_add(1, std::memory_order_relaxed);
    return complete_later(std::move(cb), std::move(s));
  }
  stats_.write_zeroes.fetch_add(1, std::memory_order_relaxed);
  write_zeroes_impl(offset, length, flags, counting(std::move(cb)));
}

void Device::prefetch(uint64_t offset, uint64_t length, IoCallback cb) {
  Status s = check_range(offset, length, false);
  if (!s.ok()) {
    stats_.rejected.fetch_add(1, std::memory_order_relaxed);
    return complete_later(std::move(cb), std::move(s));
  }
  prefetch_impl(offset, length, counting(std::move(cb)));
}

void Device::prefetch_impl(uint64_t, uint64_t, IoCallback cb) {
  complete_later(std::move(cb), Status::Ok());
}

void Device::prefetch_by_reading(uint64_t offset, uint64_t length, IoCallback cb) {
  // Aligned for O_DIRECT; block_size() divides length (check_range).
  std::shared_ptr<std::byte> buf(
      static_cast<std::byte*>(std::aligned_alloc(std::max<uint32_t>(block_size(), 4096),
                                                 (length + 4095) / 4096 * 4096)),
      std::free);
  if (!buf) return complete_later(std::move(cb), Status::NoSpace("prefetch buffer"));
  read_impl(offset, std::span<std::byte>(buf.get(), length),
            [buf, cb = std::move(cb)](Status s) { cb(std::move(s)); });
}

}  // namespace tiercache
