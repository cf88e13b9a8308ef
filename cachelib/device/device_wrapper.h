// DeviceWrapper: a Device that forwards every request to another Device (LevelDB EnvWrapper).
// Fault injectors and timing models derive from it and override only what they change.
// Does not own the target; the target must outlive the wrapper. Thread-safe if the target is.
#pragma once

#include "cachelib/device/device.h"

namespace tiercache {

class DeviceWrapper : public Device {
 public:
  explicit DeviceWrapper(Device& target, std::string name = {})
      : Device(name.empty() ? target.name() : std::move(name), target.size(),
               target.block_size(), target.max_io_bytes()),
        target_(target) {}

  Device& target() { return target_; }

 protected:
  void read_impl(uint64_t offset, std::span<std::byte> buf, IoCallback cb) override {
    target_.read(offset, buf, std::move(cb));
  }
  void write_impl(uint64_t offset, std::span<const std::byte> buf, WriteFlags flags,
                  IoCallback cb) override {
    target_.write(offset, buf, flags, std::move(cb));
  }
  void flush_impl(IoCallback cb) override { target_.flush(std::move(cb)); }
  void discard_impl(uint64_t offset, uint64_t length, IoCallback cb) override {
    target_.discard(offset, length, std::move(cb));
  }
  void write_zeroes_impl(uint64_t offset, uint64_t length, WriteFlags flags,
                         IoCallback cb) override {
    target_.write_zeroes(offset, length, flags, std::move(cb));
  }
  void prefetch_impl(uint64_t offset, uint64_t length, IoCallback cb) override {
    target_.prefetch(offset, length, std::move(cb));
  }

 private:
  Device& target_;
};

}  // namespace tiercache
