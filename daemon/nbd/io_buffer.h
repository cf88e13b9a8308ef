// IoBuffer: an owned, fixed-size, uninitialised byte buffer for request payloads and encoded
// replies (a READ reply is one buffer: header room followed by the data the device fills).
// Move-only value type; thread-compatible.
#pragma once

#include <cstddef>
#include <memory>
#include <span>

namespace tiercache::nbd {

class IoBuffer {
 public:
  IoBuffer() = default;
  // `size` bytes, not zeroed.
  static IoBuffer Allocate(size_t size) {
    IoBuffer b;
    b.data_.reset(new std::byte[size]);
    b.size_ = size;
    return b;
  }

  std::byte* data() { return data_.get(); }
  const std::byte* data() const { return data_.get(); }
  size_t size() const { return size_; }
  std::span<std::byte> span() { return {data_.get(), size_}; }
  std::span<const std::byte> span() const { return {data_.get(), size_}; }

 private:
  std::unique_ptr<std::byte[]> data_;
  size_t size_ = 0;
};

}  // namespace tiercache::nbd
