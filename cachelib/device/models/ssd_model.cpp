#include "cachelib/device/models/ssd_model.h"

#include <algorithm>
#include <cmath>

namespace tiercache {
namespace {

Nanos Us(double us) { return Nanos(static_cast<int64_t>(std::ceil(us * 1e3))); }
// Time to move `bytes` at `mb_s` (10^6 B/s).
Nanos Transfer(uint64_t bytes, double mb_s) {
  return Nanos(static_cast<int64_t>(std::ceil(static_cast<double>(bytes) * 1e3 / mb_s)));
}

}  // namespace

Result<std::unique_ptr<SsdModel>> SsdModel::Create(Device& target, const SsdParams& params) {
  TC_RETURN_IF_ERROR(params.validate());
  return std::unique_ptr<SsdModel>(new SsdModel(target, params));
}

SsdModel::SsdModel(Device& target, const SsdParams& params)
    : DeviceWrapper(target, params.name + "(" + target.name() + ")"),
      params_(params),
      unit_free_(params.units, Nanos(0)) {}

Nanos SsdModel::admit_locked(Nanos now) {
  in_flight_.erase(in_flight_.begin(), in_flight_.upper_bound(now));
  if (in_flight_.size() < params_.queue_depth) return now;
  // Wait for the earliest command to leave the drive's queue.
  const Nanos slot = *in_flight_.begin();
  in_flight_.erase(in_flight_.begin());
  return std::max(now, slot);
}

Nanos SsdModel::reserve_locked(bool write, uint64_t offset, uint64_t length, Nanos now) {
  const Nanos start = admit_locked(now) + Us(params_.command_overhead_us);
  const uint64_t stripe = params_.stripe_bytes;
  Nanos& link = link_for(write);
  Nanos done = start;
  for (uint64_t pos = offset, end = offset + length; pos < end;) {
    const uint64_t chunk_end = std::min(end, (pos / stripe + 1) * stripe);
    const uint64_t n = chunk_end - pos;
    Nanos& unit = unit_free_[(pos / stripe) % params_.units];
    if (!write) {
      unit = std::max(start, unit) + Us(params_.read_latency_us) +
             Transfer(n, params_.unit_read_mb_s);
      link = std::max(link, unit) + Transfer(n, params_.link_read_mb_s);
      done = std::max(done, link);
    } else {
      link = std::max(link, start) + Transfer(n, params_.link_write_mb_s);
      unit = std::max(unit, link) + Us(params_.program_latency_us) +
             Transfer(n, params_.unit_write_mb_s);
      const Nanos ack = std::max(link + Us(params_.write_ack_us),
                                 unit - Us(params_.write_lag_ms * 1e3));
      done = std::max(done, ack);
    }
    pos = chunk_end;
  }
  in_flight_.insert(done);
  return done;
}

void SsdModel::complete_at(const std::shared_ptr<CompletionJoin>& join, bool write,
                           uint64_t offset, uint64_t length) {
  EventLoop* loop = EventLoop::current();
  const Nanos now = loop->clock().now();
  Nanos when;
  {
    std::lock_guard lock(mu_);
    when = reserve_locked(write, offset, length, now);
  }
  CompletionJoin::ModelDoneAt(join, loop, when);
}

void SsdModel::read_impl(uint64_t offset, std::span<std::byte> buf, IoCallback cb) {
  auto join = CompletionJoin::Create(std::move(cb));
  target().read(offset, buf, CompletionJoin::TargetCallback(join));
  complete_at(join, false, offset, buf.size());
}

void SsdModel::write_impl(uint64_t offset, std::span<const std::byte> buf, WriteFlags flags,
                          IoCallback cb) {
  auto join = CompletionJoin::Create(std::move(cb));
  target().write(offset, buf, flags, CompletionJoin::TargetCallback(join));
  complete_at(join, true, offset, buf.size());
}

void SsdModel::flush_impl(IoCallback cb) {
  auto join = CompletionJoin::Create(std::move(cb));
  target().flush(CompletionJoin::TargetCallback(join));
  EventLoop* loop = EventLoop::current();
  const Nanos now = loop->clock().now();
  Nanos when;
  {
    std::lock_guard lock(mu_);
    when = admit_locked(now) + Us(params_.command_overhead_us);
    for (Nanos unit : unit_free_) when = std::max(when, unit);  // programs still running
    when += Us(params_.flush_us);
    in_flight_.insert(when);
  }
  CompletionJoin::ModelDoneAt(join, loop, when);
}

void SsdModel::discard_impl(uint64_t offset, uint64_t length, IoCallback cb) {
  // TRIM only updates the mapping table: command overhead, no flash time.
  auto join = CompletionJoin::Create(std::move(cb));
  target().discard(offset, length, CompletionJoin::TargetCallback(join));
  EventLoop* loop = EventLoop::current();
  CompletionJoin::ModelDoneAt(join, loop,
                              loop->clock().now() + Us(params_.command_overhead_us));
}

void SsdModel::write_zeroes_impl(uint64_t offset, uint64_t length, WriteFlags flags,
                                 IoCallback cb) {
  // Modern controllers deallocate zeroed ranges: priced like a TRIM.
  auto join = CompletionJoin::Create(std::move(cb));
  target().write_zeroes(offset, length, flags, CompletionJoin::TargetCallback(join));
  EventLoop* loop = EventLoop::current();
  CompletionJoin::ModelDoneAt(join, loop,
                              loop->clock().now() + Us(params_.command_overhead_us));
}

}  // namespace tiercache
