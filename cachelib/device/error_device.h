// ErrorDevice: a DeviceWrapper that fails chosen requests with IoError before they reach the
// target (pyocf's ErrorDevice): by block range, on the Nth request, and only while armed.
// Does not own the target. Thread-safe: rules may change while any loop submits requests.
#pragma once

#include <mutex>
#include <optional>
#include <vector>

#include "cachelib/device/device_wrapper.h"

namespace tiercache {

class ErrorDevice final : public DeviceWrapper {
 public:
  // Request kinds, combined as a bit mask. write_zeroes counts as a write, prefetch as a read.
  enum Kind : uint32_t { kRead = 1, kWrite = 2, kFlush = 4, kDiscard = 8, kAnyKind = 15 };

  explicit ErrorDevice(Device& target, std::string name = {});

  // Fails requests of `kinds` overlapping [offset, offset + length). Adds to earlier ranges.
  // Flushes have no range: only fail_nth() fails them.
  void fail_range(uint64_t offset, uint64_t length, uint32_t kinds = kRead | kWrite);
  // Fails requests number nth .. nth + count - 1 (1-based) among the requests of `kinds` submitted
  // while armed, counted from this call. Replaces an earlier fail_nth(). count may be UINT64_MAX.
  void fail_nth(uint64_t nth, uint32_t kinds, uint64_t count = 1);
  // Removes every rule and resets the fail_nth() count.
  void clear();
  // While disarmed nothing fails and fail_nth() does not count. Starts armed.
  void arm();
  void disarm();
  bool armed() const;
  // Requests failed by this wrapper so far.
  uint64_t injected() const;
  // Requests counted towards fail_nth() so far.
  uint64_t counted() const;

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
  struct RangeRule {
    uint64_t offset, length;
    uint32_t kinds;
  };
  // The injected error for this request, if it must fail. Counts it for fail_nth().
  std::optional<Status> check(Kind kind, const char* op, uint64_t offset, uint64_t length);

  mutable std::mutex mu_;
  bool armed_ = true;              // GUARDED_BY(mu_)
  std::vector<RangeRule> ranges_;  // GUARDED_BY(mu_)
  uint32_t nth_kinds_ = 0;         // GUARDED_BY(mu_); 0: no fail_nth() rule
  uint64_t nth_first_ = 0;         // GUARDED_BY(mu_)
  uint64_t nth_count_ = 0;         // GUARDED_BY(mu_)
  uint64_t counted_ = 0;           // GUARDED_BY(mu_)
  uint64_t injected_ = 0;          // GUARDED_BY(mu_)
};

}  // namespace tiercache
