// MemoryDevice: a sparse in-memory Device. Unwritten and discarded ranges read as zeros, so a
// multi-terabyte device costs only what was written. Volatile: flush succeeds and does nothing.
// Thread-safe; completions are posted to the submitting loop.
#pragma once

#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "cachelib/device/device.h"

namespace tiercache {

class MemoryDevice final : public Device {
 public:
  MemoryDevice(std::string name, uint64_t size, uint32_t block_size = 512);

  // Synchronous access for tests and tools that inspect or corrupt the contents directly.
  void read_now(uint64_t offset, std::span<std::byte> out) const;
  void write_now(uint64_t offset, std::span<const std::byte> data);
  // Bytes of chunk memory currently held.
  uint64_t memory_bytes() const;

  // A copy of the whole contents, and putting one back: crash tests snapshot "what is on the
  // medium" at the crash point and restore it under a fresh instance of the code.
  using Snapshot = std::unordered_map<uint64_t, std::shared_ptr<const std::vector<std::byte>>>;
  Snapshot snapshot() const;
  void restore(const Snapshot& snap);

 protected:
  void read_impl(uint64_t offset, std::span<std::byte> buf, IoCallback cb) override;
  void write_impl(uint64_t offset, std::span<const std::byte> buf, WriteFlags flags,
                  IoCallback cb) override;
  void flush_impl(IoCallback cb) override;
  void discard_impl(uint64_t offset, uint64_t length, IoCallback cb) override;
  void write_zeroes_impl(uint64_t offset, uint64_t length, WriteFlags flags,
                         IoCallback cb) override;

 private:
  static constexpr uint64_t kChunk = 64 * 1024;
  void zero_now(uint64_t offset, uint64_t length);

  mutable std::mutex mu_;
  std::unordered_map<uint64_t, std::unique_ptr<std::byte[]>> chunks_;  // GUARDED_BY(mu_)
};

}  // namespace tiercache
