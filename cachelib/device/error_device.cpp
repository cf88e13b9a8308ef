#include "cachelib/device/error_device.h"

namespace tiercache {

ErrorDevice::ErrorDevice(Device& target, std::string name)
    : DeviceWrapper(target, std::move(name)) {}

void ErrorDevice::fail_range(uint64_t offset, uint64_t length, uint32_t kinds) {
  std::lock_guard lock(mu_);
  ranges_.push_back(RangeRule{offset, length, kinds});
}

void ErrorDevice::fail_nth(uint64_t nth, uint32_t kinds, uint64_t count) {
  std::lock_guard lock(mu_);
  nth_kinds_ = kinds;
  nth_first_ = nth;
  nth_count_ = count;
  counted_ = 0;
}

void ErrorDevice::clear() {
  std::lock_guard lock(mu_);
  ranges_.clear();
  nth_kinds_ = 0;
  counted_ = 0;
}

void ErrorDevice::arm() {
  std::lock_guard lock(mu_);
  armed_ = true;
}

void ErrorDevice::disarm() {
  std::lock_guard lock(mu_);
  armed_ = false;
}

bool ErrorDevice::armed() const {
  std::lock_guard lock(mu_);
  return armed_;
}

uint64_t ErrorDevice::injected() const {
  std::lock_guard lock(mu_);
  return injected_;
}

uint64_t ErrorDevice::counted() const {
  std::lock_guard lock(mu_);
  return counted_;
}

std::optional<Status> ErrorDevice::check(Kind kind, const char* op, uint64_t offset,
                                         uint64_t length) {
  std::lock_guard lock(mu_);
  if (!armed_) return std::nullopt;
  bool fail = false;
  if ((nth_kinds_ & kind) != 0) {
    uint64_t n = ++counted_;
    fail = n >= nth_first_ && n - nth_first_ < nth_count_;
  }
  for (const RangeRule& r : ranges_) {
    if (fail) break;
    // Overlap, written without offset + length overflowing.
    bool overlaps = offset >= r.offset ? offset - r.offset < r.length : r.offset - offset < length;
    fail = (r.kinds & kind) != 0 && length > 0 && overlaps;
  }
  if (!fail) return std::nullopt;
  ++injected_;
  std::string msg = name() + ": injected " + op + " error";
  if (length > 0)
    msg += " at offset " + std::to_string(offset) + " length " + std::to_string(length);
  return Status::IoError(msg);
}

void ErrorDevice::read_impl(uint64_t offset, std::span<std::byte> buf, IoCallback cb) {
  if (auto s = check(kRead, "read", offset, buf.size())) return complete_later(std::move(cb), *s);
  DeviceWrapper::read_impl(offset, buf, std::move(cb));
}

void ErrorDevice::write_impl(uint64_t offset, std::span<const std::byte> buf, WriteFlags flags,
                             IoCallback cb) {
  if (auto s = check(kWrite, "write", offset, buf.size())) {
    return complete_later(std::move(cb), *s);
  }
  DeviceWrapper::write_impl(offset, buf, flags, std::move(cb));
}

void ErrorDevice::flush_impl(IoCallback cb) {
  if (auto s = check(kFlush, "flush", 0, 0)) return complete_later(std::move(cb), *s);
  DeviceWrapper::flush_impl(std::move(cb));
}

void ErrorDevice::discard_impl(uint64_t offset, uint64_t length, IoCallback cb) {
  if (auto s = check(kDiscard, "discard", offset, length)) return complete_later(std::move(cb), *s);
  DeviceWrapper::discard_impl(offset, length, std::move(cb));
}

void ErrorDevice::write_zeroes_impl(uint64_t offset, uint64_t length, WriteFlags flags,
                                    IoCallback cb) {
  if (auto s = check(kWrite, "write_zeroes", offset, length)) {
    return complete_later(std::move(cb), *s);
  }
  DeviceWrapper::write_zeroes_impl(offset, length, flags, std::move(cb));
}

void ErrorDevice::prefetch_impl(uint64_t offset, uint64_t length, IoCallback cb) {
  if (auto s = check(kRead, "prefetch", offset, length)) return complete_later(std::move(cb), *s);
  DeviceWrapper::prefetch_impl(offset, length, std::move(cb));
}

}  // namespace tiercache
