// WriteOverlayDevice: a Device over another that never writes to it. Writes, write-zeroes and
// discards are kept in memory, block by block, and reads see them on top of the target's data;
// flush does nothing. `tiercache check`, and tiercached when a cache's core is missing, open the
// metadata through it, so what open writes (marking the cache in use) leaves the SSD untouched.
// Does not own the target, which must outlive it. Thread-safe.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "cachelib/device/device_wrapper.h"

namespace tiercache {

class WriteOverlayDevice final : public DeviceWrapper {
 public:
  explicit WriteOverlayDevice(Device& target);

  // Blocks written so far (what a check would have changed on the SSD).
  uint64_t overlay_blocks() const;

 protected:
  void read_impl(uint64_t offset, std::span<std::byte> buf, IoCallback cb) override;
  void write_impl(uint64_t offset, std::span<const std::byte> buf, WriteFlags flags,
                  IoCallback cb) override;
  void flush_impl(IoCallback cb) override;
  void discard_impl(uint64_t offset, uint64_t length, IoCallback cb) override;
  void write_zeroes_impl(uint64_t offset, uint64_t length, WriteFlags flags,
                         IoCallback cb) override;
  void prefetch_impl(uint64_t offset, uint64_t length, IoCallback cb) override;

 private:
  // Copies overlay blocks over buf, which holds the target's bytes at `offset`.
  void apply(uint64_t offset, std::span<std::byte> buf) const;
  void store(uint64_t offset, std::span<const std::byte> data);
  void store_zeroes(uint64_t offset, uint64_t length);

  mutable std::mutex mu_;
  std::map<uint64_t, std::vector<std::byte>> blocks_;  // block index -> data; GUARDED_BY(mu_)
};

}  // namespace tiercache
