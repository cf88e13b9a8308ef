// IoBuffer: an owned, fixed-size, uninitialised byte buffer for request payloads and encoded
// replies (a READ reply is one buffer: header room followed by the data the device fills, the
// data 4096-aligned so O_DIRECT devices read straight into it).
// Move-only value type; thread-compatible.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <span>

namespace tiercache::nbd {

class IoBuffer {
 public:
  // O_DIRECT wants 4096-aligned memory; data placed there needs no bounce copy in FileDevice.
  static constexpr size_t kAlignment = 4096;

  IoBuffer() = default;
  // `size` bytes, not zeroed.
  static IoBuffer Allocate(size_t size) {
    IoBuffer b;
    b.base_.reset(static_cast<std::byte*>(std::malloc(size ? size : 1)));
    b.data_ = b.base_.get();
    b.size_ = size;
    return b;
  }
  // `prefix` bytes (e.g. a reply header) followed by `size` bytes that start on a 4096-byte
  // boundary. The buffer as a whole (data(), span()) begins at the prefix.
  static IoBuffer AllocateAligned(size_t prefix, size_t size) {
    IoBuffer b;
    size_t lead = (prefix + kAlignment - 1) / kAlignment * kAlignment;
    size_t total = (lead + size + kAlignment - 1) / kAlignment * kAlignment;
    b.base_.reset(static_cast<std::byte*>(std::aligned_alloc(kAlignment, total ? total : kAlignment)));
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
  struct Free {
    void operator()(std::byte* p) const { std::free(p); }
  };
  std::unique_ptr<std::byte, Free> base_;
  std::byte* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace tiercache::nbd
