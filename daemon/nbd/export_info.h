// ExportInfo: what the server advertises for its single export (name, size, block size
// constraints, transmission flags), derived once from the Device it serves.
// Immutable after construction; safe to share between threads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "cachelib/common/status.h"
#include "cachelib/device/device.h"

namespace tiercache::nbd {

class ExportInfo {
 public:
  // Preferred block size advertised unless the device block size is larger.
  static constexpr uint32_t kPreferredBlock = 4096;
  // Largest READ/WRITE/CACHE length accepted (also the NBD_INFO_BLOCK_SIZE maximum).
  static constexpr uint32_t kMaxBlock = 32u << 20;

  // `name` is the canonical export name; clients may also ask for the default export "".
  // REQUIRES: Validate(...) returned OK for the same arguments.
  ExportInfo(std::string name, std::string description, uint64_t size, uint32_t min_block,
             uint64_t max_io_bytes);
  static ExportInfo ForDevice(const Device& device, std::string name, std::string description) {
    return ExportInfo(std::move(name), std::move(description), device.size(), device.block_size(),
                      device.max_io_bytes());
  }
  // Checks that the values can be advertised: a power-of-two minimum block no larger than
  // 64 KiB (the protocol's bound), names within the string limit, a usable maximum.
  static Status Validate(std::string_view name, std::string_view description, uint32_t min_block,
                         uint64_t max_io_bytes);

  const std::string& name() const { return name_; }
  const std::string& description() const { return description_; }
  uint64_t size() const { return size_; }
  uint32_t min_block() const { return min_block_; }
  uint32_t preferred_block() const { return preferred_block_; }
  uint32_t max_block() const { return max_block_; }

  // True for the default export "" and for the canonical name.
  bool Matches(std::string_view requested) const { return requested.empty() || requested == name_; }
  // NBD transmission flags; SEND_DF only once structured replies were negotiated.
  uint16_t TransmissionFlags(bool structured_replies) const;

 private:
  std::string name_;
  std::string description_;
  uint64_t size_;
  uint32_t min_block_;
  uint32_t preferred_block_;
  uint32_t max_block_;
};

}  // namespace tiercache::nbd
