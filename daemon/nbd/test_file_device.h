// TestFileDevice: a Device over a regular file with synchronous pread/pwrite, completing
// through the loop like any Device. Test-only (nbd_test_server): simple, not fast.
// Owns its fd; thread-safe (positional I/O only).
#pragma once

#include <memory>
#include <string>

#include "cachelib/device/device.h"

namespace tiercache::nbd {

class TestFileDevice final : public Device {
 public:
  // Opens `path` read-write; the device size is the file size rounded down to `block_size`.
  static Result<std::unique_ptr<TestFileDevice>> Open(const std::string& path, uint32_t block_size);
  ~TestFileDevice() override;

 protected:
  void read_impl(uint64_t offset, std::span<std::byte> buf, IoCallback cb) override;
  void write_impl(uint64_t offset, std::span<const std::byte> buf, WriteFlags flags,
                  IoCallback cb) override;
  void flush_impl(IoCallback cb) override;
  void discard_impl(uint64_t offset, uint64_t length, IoCallback cb) override;
  void write_zeroes_impl(uint64_t offset, uint64_t length, WriteFlags flags,
                         IoCallback cb) override;

 private:
  TestFileDevice(std::string path, int fd, uint64_t size, uint32_t block_size)
      : Device(std::move(path), size, block_size), fd_(fd) {}
  Status ZeroRange(uint64_t offset, uint64_t length);

  const int fd_;
};

}  // namespace tiercache::nbd
