#include "bench/sim/sim_core_device.h"

#include <cstring>

namespace tiercache::bench {

void SimCoreDevice::read_impl(uint64_t, std::span<std::byte> buf, IoCallback cb) {
  std::memset(buf.data(), 0, buf.size());
  complete_later(std::move(cb), Status::Ok());
}

void SimCoreDevice::write_impl(uint64_t, std::span<const std::byte>, WriteFlags, IoCallback cb) {
  complete_later(std::move(cb), Status::Ok());
}

void SimCoreDevice::flush_impl(IoCallback cb) { complete_later(std::move(cb), Status::Ok()); }

void SimCoreDevice::discard_impl(uint64_t, uint64_t, IoCallback cb) {
  complete_later(std::move(cb), Status::Ok());
}

void SimCoreDevice::write_zeroes_impl(uint64_t, uint64_t, WriteFlags, IoCallback cb) {
  complete_later(std::move(cb), Status::Ok());
}

}  // namespace tiercache::bench
