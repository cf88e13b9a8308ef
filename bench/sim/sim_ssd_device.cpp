#include "bench/sim/sim_ssd_device.h"

#include <algorithm>
#include <cassert>
#include <cstring>

namespace tiercache::bench {

namespace {
constexpr uint32_t kSsdBlock = 4096;
}  // namespace

// The metadata store needs a non-empty device even when data_offset is 0 (never in a real layout).
SimSsdDevice::SimSsdDevice(uint64_t size, uint64_t data_offset)
    : Device("sim-ssd", size, kSsdBlock),
      data_offset_(data_offset),
      metadata_("sim-ssd-metadata", std::max<uint64_t>(data_offset, kSsdBlock), kSsdBlock) {
  assert(data_offset % kSsdBlock == 0 && data_offset <= size);
}

uint64_t SimSsdDevice::metadata_bytes(uint64_t offset, uint64_t length) const {
  return offset < data_offset_ ? std::min(length, data_offset_ - offset) : 0;
}

// In each hook the data-region part needs no I/O; the metadata part, if any, is forwarded to the
// metadata store, which completes the callback on the loop.
void SimSsdDevice::read_impl(uint64_t offset, std::span<std::byte> buf, IoCallback cb) {
  const uint64_t meta = metadata_bytes(offset, buf.size());
  if (meta < buf.size()) std::memset(buf.data() + meta, 0, buf.size() - meta);
  if (meta == 0) return complete_later(std::move(cb), Status::Ok());
  metadata_.read(offset, buf.first(meta), std::move(cb));
}

void SimSsdDevice::write_impl(uint64_t offset, std::span<const std::byte> buf, WriteFlags flags,
                              IoCallback cb) {
  const uint64_t meta = metadata_bytes(offset, buf.size());
  if (meta == 0) return complete_later(std::move(cb), Status::Ok());
  metadata_.write(offset, buf.first(meta), flags, std::move(cb));
}

void SimSsdDevice::flush_impl(IoCallback cb) { complete_later(std::move(cb), Status::Ok()); }

void SimSsdDevice::discard_impl(uint64_t offset, uint64_t length, IoCallback cb) {
  const uint64_t meta = metadata_bytes(offset, length);
  if (meta == 0) return complete_later(std::move(cb), Status::Ok());
  metadata_.discard(offset, meta, std::move(cb));
}

void SimSsdDevice::write_zeroes_impl(uint64_t offset, uint64_t length, WriteFlags flags,
                                     IoCallback cb) {
  const uint64_t meta = metadata_bytes(offset, length);
  if (meta == 0) return complete_later(std::move(cb), Status::Ok());
  metadata_.write_zeroes(offset, meta, flags, std::move(cb));
}

}  // namespace tiercache::bench
