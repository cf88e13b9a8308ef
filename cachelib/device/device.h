// Device: the asynchronous block-device interface every layer talks through (LevelDB Env style):
// file and memory backends, fault injectors, timing models and the cache engine itself all are
// Devices, so a test can swap any of them for another.
//
// Contract:
// - Requests are submitted from an event-loop thread (EventLoop::current() != nullptr). The callback
//   runs later on that same loop, never inline inside the submitting call.
// - The caller keeps `buf` alive and untouched until the callback runs.
// - The public methods are non-virtual: they check range, alignment, length and the size limit,
//   count statistics, and only then call the *_impl hooks (so implementations see valid requests).
// - Thread-safe: any number of loops may submit concurrently.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "cachelib/common/status.h"

namespace tiercache {

using IoCallback = std::function<void(Status)>;

// Per-request flags that are not part of the data (kept apart from any wire protocol's flags).
struct WriteFlags {
  // Force unit access: the write is durable when the callback reports OK.
  bool fua = false;
};

// Counters kept by Device's public methods. Relaxed atomics: exact once quiescent.
struct DeviceStats {
  std::atomic<uint64_t> reads{0}, writes{0}, flushes{0}, discards{0}, write_zeroes{0};
  std::atomic<uint64_t> bytes_read{0}, bytes_written{0};
  std::atomic<uint64_t> errors{0};         // requests whose callback saw a non-OK status
  std::atomic<uint64_t> rejected{0};       // requests refused by validation
};

class Device {
 public:
  // 32 MiB: the largest single request, as advertised over NBD.
  static constexpr uint64_t kDefaultMaxIoBytes = 32ull << 20;

  Device(std::string name, uint64_t size, uint32_t block_size,
         uint64_t max_io_bytes = kDefaultMaxIoBytes);
  virtual ~Device() = default;
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  // A human-readable name for error messages, e.g. the path.
  const std::string& name() const { return name_; }
  uint64_t size() const { return size_; }
  // Logical block size: offsets and lengths must be multiples of it.
  uint32_t block_size() const { return block_size_; }
  uint64_t max_io_bytes() const { return max_io_bytes_; }
  const DeviceStats& stats() const { return stats_; }

  void read(uint64_t offset, std::span<std::byte> buf, IoCallback cb);
  void write(uint64_t offset, std::span<const std::byte> buf, WriteFlags flags, IoCallback cb);
  // Makes every write that completed before this call durable.
  void flush(IoCallback cb);
  // Drops the data in the range; it reads back as unspecified (zeros on our backends).
  void discard(uint64_t offset, uint64_t length, IoCallback cb);
  // The range reads back as zeros afterwards.
  void write_zeroes(uint64_t offset, uint64_t length, WriteFlags flags, IoCallback cb);
  // A hint that the range will be read soon (NBD_CMD_CACHE). Default: succeeds, does nothing.
  void prefetch(uint64_t offset, uint64_t length, IoCallback cb);

  // Validation shared with front-ends that want to reject a request before reading its payload.
  // `is_write` selects NoSpace (writes) over InvalidArgument (reads) for ranges past the end.
  Status check_range(uint64_t offset, uint64_t length, bool is_write) const;

 protected:
  virtual void read_impl(uint64_t offset, std::span<std::byte> buf, IoCallback cb) = 0;
  virtual void write_impl(uint64_t offset, std::span<const std::byte> buf, WriteFlags flags,
                          IoCallback cb) = 0;
  virtual void flush_impl(IoCallback cb) = 0;
  virtual void discard_impl(uint64_t offset, uint64_t length, IoCallback cb) = 0;
  virtual void write_zeroes_impl(uint64_t offset, uint64_t length, WriteFlags flags,
                                 IoCallback cb) = 0;
  virtual void prefetch_impl(uint64_t offset, uint64_t length, IoCallback cb);

  // Runs cb(status) later on the current event loop (never inline).
  static void complete_later(IoCallback cb, Status status);
  // A prefetch_impl for devices with a read-ahead of their own (a disk's buffer): reads the range
  // with read_impl into a buffer it then drops.
  void prefetch_by_reading(uint64_t offset, uint64_t length, IoCallback cb);

 private:
  IoCallback counting(IoCallback cb);

  const std::string name_;
  const uint64_t size_;
  const uint32_t block_size_;
  const uint64_t max_io_bytes_;
  DeviceStats stats_;
};

}  // namespace tiercache
