// SimSsdDevice: the SSD of a simulated cache. It keeps only the metadata region (superblock and
// line records, everything below the layout's data_offset) so a many-gigabyte cache costs only its
// metadata in RAM; data-region writes are dropped and data reads return zeros. The engine never
// looks at cached data, so its decisions are the same as on a real SSD. Owns its metadata store;
// thread-safe; completions are posted to the submitting loop.
#pragma once

#include <cstdint>

#include "cachelib/device/device.h"
#include "cachelib/device/memory_device.h"

namespace tiercache::bench {

class SimSsdDevice final : public Device {
 public:
  // `size` bytes with the data region starting at `data_offset` (a multiple of 4096, <= size).
  SimSsdDevice(uint64_t size, uint64_t data_offset);

  uint64_t data_offset() const { return data_offset_; }
  // Bytes of RAM held for the metadata region.
  uint64_t memory_bytes() const { return metadata_.memory_bytes(); }

 protected:
  void read_impl(uint64_t offset, std::span<std::byte> buf, IoCallback cb) override;
  void write_impl(uint64_t offset, std::span<const std::byte> buf, WriteFlags flags,
                  IoCallback cb) override;
  void flush_impl(IoCallback cb) override;
  void discard_impl(uint64_t offset, uint64_t length, IoCallback cb) override;
  void write_zeroes_impl(uint64_t offset, uint64_t length, WriteFlags flags,
                         IoCallback cb) override;

 private:
  // How many of the `length` bytes at `offset` lie in the metadata region (they come first).
  uint64_t metadata_bytes(uint64_t offset, uint64_t length) const;

  const uint64_t data_offset_;
  MemoryDevice metadata_;  // [0, data_offset): sparse, zeros until written
};

}  // namespace tiercache::bench
