// SsdModel: a DeviceWrapper that completes each request when a modelled flash SSD would. Data goes
// to the wrapped device at once; the callback runs when both the data I/O and the modelled time are
// done (EventLoop::current()->schedule_at), in real or virtual time.
//
// Model (docs/device-models.md): each request waits for a free command slot (queue_depth), pays
// the command overhead, and is split into stripe chunks; a chunk occupies its flash unit (read:
// read_latency + transfer; write: program_latency + transfer) and the host link (payload rate).
// Reads go unit -> link; writes go link -> unit and are acknowledged write_ack after the transfer
// unless the units are more than write_lag behind. Resources are reserved first-come first-served
// when a request arrives, so the model is deterministic and needs no seed.
//
// Ownership: does not own the target. Thread-safe; all submitting loops must share one clock.
#pragma once

#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "cachelib/device/models/completion_join.h"
#include "cachelib/device/models/ssd_params.h"
#include "cachelib/device/device_wrapper.h"

namespace tiercache {

class SsdModel final : public DeviceWrapper {
 public:
  // InvalidArgument if params.validate() fails.
  static Result<std::unique_ptr<SsdModel>> Create(Device& target, const SsdParams& params);

  const SsdParams& params() const { return params_; }

 protected:
  void read_impl(uint64_t offset, std::span<std::byte> buf, IoCallback cb) override;
  void write_impl(uint64_t offset, std::span<const std::byte> buf, WriteFlags flags,
                  IoCallback cb) override;
  void flush_impl(IoCallback cb) override;
  void discard_impl(uint64_t offset, uint64_t length, IoCallback cb) override;
  void write_zeroes_impl(uint64_t offset, uint64_t length, WriteFlags flags,
                         IoCallback cb) override;

 private:
  SsdModel(Device& target, const SsdParams& params);

  // Reserves resources for a request arriving now and returns its completion time.
  Nanos reserve_locked(bool write, uint64_t offset, uint64_t length, Nanos now);
  Nanos admit_locked(Nanos now);
  Nanos& link_for(bool write) { return params_.full_duplex && write ? link_write_free_ : link_free_; }
  void complete_at(const std::shared_ptr<CompletionJoin>& join, bool write, uint64_t offset,
                   uint64_t length);

  const SsdParams params_;
  std::mutex mu_;
  // All below GUARDED_BY(mu_).
  std::vector<Nanos> unit_free_;
  Nanos link_free_{0}, link_write_free_{0};
  std::multiset<Nanos> in_flight_;  // completion times of admitted commands
};

}  // namespace tiercache
