// FaultInjectingDevice: a DeviceWrapper that models a volatile write cache for crash tests
// (LevelDB's FaultInjectionTestEnv). Writes reach the target at once but only become durable when
// a flush covers them or they carry FUA; power_cut() reverts every write that is not durable and
// then fails every request until reset(). Does not own the target. Thread-safe.
//
// Undo data: before each non-FUA write or write_zeroes the wrapper reads the target range and keeps
// it until a flush covers the write, so memory grows with unflushed data. Discards are passed
// through and never reverted (their contents are unspecified anyway). Overlapping writes that are
// in flight at the same time have no defined order here either.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "cachelib/device/device_wrapper.h"

namespace tiercache {

class EventLoop;

class FaultInjectingDevice final : public DeviceWrapper {
 public:
  explicit FaultInjectingDevice(Device& target, std::string name = {});

  // Simulates a power loss. New requests fail with IoError from this call on, and so do requests
  // still in flight. Once those have drained, every write not covered by a completed flush or FUA
  // is reverted on the target, newest first, to its content at the last durable point; then
  // done(status of the revert) runs on the calling loop. With `keep_seed`, each non-durable write
  // instead survives with probability 1/2, chosen by a PRNG seeded with it (real disks may persist
  // some unflushed writes). REQUIRES: called on an event loop; no other power_cut() pending.
  void power_cut(IoCallback done, std::optional<uint64_t> keep_seed = std::nullopt);
  // Powers the device back on: requests pass again. REQUIRES: the power_cut() done ran.
  void reset();
  bool powered() const;

  // Writes (including write_zeroes) completed but not yet durable.
  size_t unflushed_writes() const;
  // Writes reverted by the last power_cut().
  uint64_t reverted_writes() const;

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
  // One completed write, in completion order. Durable entries keep no undo data.
  struct Entry {
    uint64_t seq;
    uint64_t offset;
    uint64_t length;
    bool durable;
    std::vector<std::byte> undo;  // the range's content before the write
  };
  struct PendingCut {
    EventLoop* loop;
    IoCallback done;
    std::optional<uint64_t> keep_seed;
  };
  struct Revert;

  // Counts a request in flight; false (and nothing counted) once the power is cut.
  bool admit(const char* op, IoCallback& cb);
  // Ends a request: fails it if the power was cut meanwhile, starts a waiting revert.
  void finish(IoCallback cb, Status s);
  // A write or write_zeroes: reads the undo data (unless FUA), runs `submit`, logs the write.
  void logged_write(const char* op, uint64_t offset, uint64_t length, bool fua,
                    std::function<void(IoCallback)> submit, IoCallback cb);
  // Reads the target range into `undo` (in max_io_bytes pieces), then runs `then`.
  void read_undo(uint64_t offset, std::shared_ptr<std::vector<std::byte>> undo, uint64_t done,
                 IoCallback then);
  void record(uint64_t offset, uint64_t length, bool durable, std::vector<std::byte> undo);
  // Runs on the cutting loop once nothing is in flight.
  void start_revert();
  void revert_next(std::shared_ptr<Revert> r);

  mutable std::mutex mu_;
  bool dead_ = false;              // GUARDED_BY(mu_)
  uint64_t in_flight_ = 0;         // GUARDED_BY(mu_)
  uint64_t next_seq_ = 1;          // GUARDED_BY(mu_)
  std::deque<Entry> log_;          // GUARDED_BY(mu_)
  std::optional<PendingCut> cut_;  // GUARDED_BY(mu_)
  uint64_t reverted_ = 0;          // GUARDED_BY(mu_)
};

}  // namespace tiercache
