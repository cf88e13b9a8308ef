#include "cachelib/device/write_overlay_device.h"

#include <algorithm>
#include <cstring>

namespace tiercache {

WriteOverlayDevice::WriteOverlayDevice(Device& target)
    : DeviceWrapper(target) {}  // same name: error messages name the real device

uint64_t WriteOverlayDevice::overlay_blocks() const {
  std::lock_guard lock(mu_);
  return blocks_.size();
}

void WriteOverlayDevice::read_impl(uint64_t offset, std::span<std::byte> buf, IoCallback cb) {
  target().read(offset, buf, [this, offset, buf, cb = std::move(cb)](Status status) {
    if (status.ok()) apply(offset, buf);
    cb(std::move(status));
  });
}

void WriteOverlayDevice::write_impl(uint64_t offset, std::span<const std::byte> buf, WriteFlags,
                                    IoCallback cb) {
  store(offset, buf);
  complete_later(std::move(cb), Status::Ok());
}

void WriteOverlayDevice::flush_impl(IoCallback cb) { complete_later(std::move(cb), Status::Ok()); }

void WriteOverlayDevice::discard_impl(uint64_t offset, uint64_t length, IoCallback cb) {
  store_zeroes(offset, length);
  complete_later(std::move(cb), Status::Ok());
}

void WriteOverlayDevice::write_zeroes_impl(uint64_t offset, uint64_t length, WriteFlags,
                                           IoCallback cb) {
  store_zeroes(offset, length);
  complete_later(std::move(cb), Status::Ok());
}

void WriteOverlayDevice::prefetch_impl(uint64_t, uint64_t, IoCallback cb) {
  complete_later(std::move(cb), Status::Ok());
}

void WriteOverlayDevice::apply(uint64_t offset, std::span<std::byte> buf) const {
  const uint64_t bs = block_size();
  std::lock_guard lock(mu_);
  auto it = blocks_.lower_bound(offset / bs);
  for (; it != blocks_.end() && it->first * bs < offset + buf.size(); ++it) {
    std::memcpy(buf.data() + (it->first * bs - offset), it->second.data(), bs);
  }
}

void WriteOverlayDevice::store(uint64_t offset, std::span<const std::byte> data) {
  const uint64_t bs = block_size();
  std::lock_guard lock(mu_);
  for (uint64_t done = 0; done < data.size(); done += bs) {
    std::vector<std::byte>& block = blocks_[(offset + done) / bs];
    block.assign(data.begin() + done, data.begin() + done + bs);
  }
}

void WriteOverlayDevice::store_zeroes(uint64_t offset, uint64_t length) {
  const uint64_t bs = block_size();
  std::lock_guard lock(mu_);
  for (uint64_t done = 0; done < length; done += bs) {
    blocks_[(offset + done) / bs].assign(bs, std::byte{0});
  }
}

}  // namespace tiercache
