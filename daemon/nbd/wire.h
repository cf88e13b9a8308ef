// Big-endian encoding helpers for the NBD wire format: Put* append to a byte vector or store
// into a fixed buffer; WireReader consumes a span with bounds checks (a short read fails instead
// of reading past the end). Value types; thread-compatible.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

namespace tiercache::nbd {

using Bytes = std::vector<std::byte>;

inline void StoreBe16(std::byte* p, uint16_t v) {
  p[0] = std::byte(v >> 8);
  p[1] = std::byte(v);
}
inline void StoreBe32(std::byte* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = std::byte(v >> (24 - 8 * i));
}
inline void StoreBe64(std::byte* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = std::byte(v >> (56 - 8 * i));
}
inline uint16_t LoadBe16(const std::byte* p) {
  return uint16_t((uint16_t(p[0]) << 8) | uint16_t(p[1]));
}
inline uint32_t LoadBe32(const std::byte* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v = (v << 8) | uint32_t(p[i]);
  return v;
}
inline uint64_t LoadBe64(const std::byte* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | uint64_t(p[i]);
  return v;
}

inline void PutBe16(Bytes& out, uint16_t v) {
  out.resize(out.size() + 2);
  StoreBe16(out.data() + out.size() - 2, v);
}
inline void PutBe32(Bytes& out, uint32_t v) {
  out.resize(out.size() + 4);
  StoreBe32(out.data() + out.size() - 4, v);
}
inline void PutBe64(Bytes& out, uint64_t v) {
  out.resize(out.size() + 8);
  StoreBe64(out.data() + out.size() - 8, v);
}
inline void PutString(Bytes& out, std::string_view s) {
  const auto* p = reinterpret_cast<const std::byte*>(s.data());
  out.insert(out.end(), p, p + s.size());
}

// Reads big-endian fields from a span. Each getter returns false (and leaves the value alone)
// when fewer bytes remain than it needs.
class WireReader {
 public:
  explicit WireReader(std::span<const std::byte> data) : data_(data) {}

  size_t remaining() const { return data_.size() - pos_; }
  bool Be16(uint16_t& v) {
    return Take(2, [&](const std::byte* p) { v = LoadBe16(p); });
  }
  bool Be32(uint32_t& v) {
    return Take(4, [&](const std::byte* p) { v = LoadBe32(p); });
  }
  bool Be64(uint64_t& v) {
    return Take(8, [&](const std::byte* p) { v = LoadBe64(p); });
  }
  bool String(size_t len, std::string_view& s) {
    return Take(len, [&](const std::byte* p) {
      s = std::string_view(reinterpret_cast<const char*>(p), len);
    });
  }

 private:
  template <typename Fn>
  bool Take(size_t n, Fn fn) {
    if (remaining() < n) return false;
    fn(data_.data() + pos_);
    pos_ += n;
    return true;
  }

  std::span<const std::byte> data_;
  size_t pos_ = 0;
};

}  // namespace tiercache::nbd
