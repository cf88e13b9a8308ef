// SimCoreDevice: the HDD ("core") of a simulated cache. It keeps no data: writes, discards and
// flushes succeed without storing anything and reads return zeros, so a multi-terabyte core costs
// nothing. Stateless apart from Device's counters; thread-safe; completions are posted to the
// submitting loop.
#pragma once

#include <cstdint>

#include "cachelib/device/device.h"

namespace tiercache::bench {

class SimCoreDevice final : public Device {
 public:
  static constexpr uint32_t kBlockSize = 512;
  explicit SimCoreDevice(uint64_t size) : Device("sim-core", size, kBlockSize) {}

 protected:
  void read_impl(uint64_t offset, std::span<std::byte> buf, IoCallback cb) override;
  void write_impl(uint64_t offset, std::span<const std::byte> buf, WriteFlags flags,
                  IoCallback cb) override;
  void flush_impl(IoCallback cb) override;
  void discard_impl(uint64_t offset, uint64_t length, IoCallback cb) override;
  void write_zeroes_impl(uint64_t offset, uint64_t length, WriteFlags flags,
                         IoCallback cb) override;
};

}  // namespace tiercache::bench
