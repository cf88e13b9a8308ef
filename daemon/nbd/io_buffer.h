// IoBuffer: an owned, fixed-size, uninitialised byte buffer for request payloads and encoded
// replies (a READ reply is one buffer: header room followed by the data the device fills, the
// data 4096-aligned so O_DIRECT devices read straight into it). Memory comes from, and returns
// to, the calling thread's BufferPool.
// Move-only value type; thread-compatible.
#pragma once

#include <cstddef>
#include <memory>
#include <span>

#include "daemon/nbd/buffer_pool.h"

namespace tiercache::nbd {

class IoBuffer {
 public:
  // O_DIRECT wants 4096-aligned memory; data placed there needs no bounce copy in FileDevice.
  static constexpr size_t kAlignment = BufferPool::kPage;

  IoBuffer() = default;
  // `size` bytes, not zeroed.
  static IoBuffer Allocate(size_t size) { return AllocateAligned(0, size); }
  // `prefix` bytes (e.g. a reply header) followed by `size` bytes that start on a 4096-byte
  // boundary. The buffer as a whole (data(), span()) begins at the prefix.
  static IoBuffer AllocateAligned(size_t prefix, size_t size) {
    IoBuffer b;
    size_t lead = (prefix + kAlignment - 1) / kAlignment * kAlignment;
    size_t total = lead + size;
    b.base_ = Block(BufferPool::Allocate(total), Release{total});
    b.data_ = b.base_.get() + lead - prefix;
    b.size_ = prefix + size;
    return b;
  }

  std::byte* data() { return data_; }
  const std::byte* data() const { return data_; }
  size_t size() const { return size_; }
  std::span<std::byte> span() { return {data_, size_}; }
  std::span<const std::byte> span() const { return {data_, size_}; }

 private:
  struct Release {
    size_t bytes;  // no initializer: unique_ptr default-constructs it inside this class
    void operator()(std::byte* p) const { BufferPool::Release(p, bytes); }
  };
  using Block = std::unique_ptr<std::byte, Release>;
  Block base_;
  std::byte* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace tiercache::nbd
