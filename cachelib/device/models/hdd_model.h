// HddModel: a DeviceWrapper that completes each request when a modelled hard disk would. Data goes
// to the wrapped device at once; the caller's callback runs when both the data I/O and the modelled
// time are done, via EventLoop::current()->schedule_at, so it works on an EpollEventLoop (real
// time) and a SimEventLoop (virtual time) alike. Deterministic for a given seed and request order.
//
// What is modelled (docs/device-models.md): one head services one command at a time; seek time
// from a curve fitted to the datasheet (SeekCurve); rotational position from a spindle phase
// (seeded); zoned media rate; command overhead; NCQ: shortest-access-time-first among the oldest
// ncq_depth commands, with a starvation limit; a read buffer with read-ahead (HddReadBuffer); an
// optional write cache (writes complete once transferred into it and are destaged later; flush
// waits for the destage of every write completed before it; FUA writes go to the media); one host
// link that buffer hits and cached writes take turns on.
//
// Ownership: does not own the target. Thread-safe; all submitting loops must share one clock
// (true for EpollEventLoops). REQUIRES: no request in flight when destroyed.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "cachelib/device/models/completion_join.h"
#include "cachelib/device/models/hdd_geometry.h"
#include "cachelib/device/models/hdd_params.h"
#include "cachelib/device/models/hdd_read_buffer.h"
#include "cachelib/device/device_wrapper.h"

namespace tiercache {

class HddModel final : public DeviceWrapper {
 public:
  // InvalidArgument if params.validate() fails.
  static Result<std::unique_ptr<HddModel>> Create(Device& target, const HddParams& params,
                                                  uint64_t seed = 1);

  struct Counters {
    uint64_t media_ops = 0;             // commands the head serviced, destages included
    uint64_t buffer_hits = 0;           // reads served from the read buffer without the head
    uint64_t stream_continuations = 0;  // reads that continued a read-ahead stream
    uint64_t cached_writes = 0;         // writes completed into the write cache
    uint64_t destages = 0;
    uint64_t starved_picks = 0;         // commands served first because they waited too long
    Nanos head_busy{0};                 // total time the head was servicing commands
  };
  Counters counters() const;
  const HddParams& params() const { return params_; }
  const HddGeometry& geometry() const { return geo_; }

 protected:
  // A disk's buffer keeps what a read brought in (and its read-ahead runs on): a real read.
  void prefetch_impl(uint64_t offset, uint64_t length, IoCallback cb) override {
    prefetch_by_reading(offset, length, std::move(cb));
  }
  void read_impl(uint64_t offset, std::span<std::byte> buf, IoCallback cb) override;
  void write_impl(uint64_t offset, std::span<const std::byte> buf, WriteFlags flags,
                  IoCallback cb) override;
  void flush_impl(IoCallback cb) override;
  void discard_impl(uint64_t offset, uint64_t length, IoCallback cb) override;
  void write_zeroes_impl(uint64_t offset, uint64_t length, WriteFlags flags,
                         IoCallback cb) override;

 private:
  enum class Kind : uint8_t { kRead, kWrite, kDestage };
  struct Op {
    uint64_t seq;
    Kind kind;
    uint64_t offset, length;
    Nanos ready;  // arrival + command overhead
    EventLoop* loop;
    std::shared_ptr<CompletionJoin> join;  // null for destages
  };
  struct Plan {
    Nanos start, access_end, finish;
    bool continuation = false;
  };
  struct Waiter {  // a flush waiting for destages, or a write waiting for cache room
    uint64_t seq_or_offset, length;
    EventLoop* loop;
    std::shared_ptr<CompletionJoin> join;
  };
  using Deferred = std::vector<std::shared_ptr<CompletionJoin>>;

  HddModel(Device& target, const HddParams& params, uint64_t seed);

  Nanos interface_time(uint64_t bytes) const;
  // Reserves the host link for `bytes` starting no earlier than `from`; returns when it is done.
  Nanos link_transfer_locked(Nanos from, uint64_t bytes);
  bool cache_has_room_locked(uint64_t length) const;
  void submit_media(Kind kind, uint64_t offset, uint64_t length,
                    std::shared_ptr<CompletionJoin> join);
  void submit_write(uint64_t offset, uint64_t length, bool fua,
                    std::shared_ptr<CompletionJoin> join);
  void cache_write_locked(uint64_t offset, uint64_t length, EventLoop* loop,
                          std::shared_ptr<CompletionJoin> join, Nanos now);
  Plan plan_locked(const Op& op, Nanos t) const;
  bool pick_locked(Nanos t, std::deque<Op>** from, size_t* index);
  void dispatch_locked(Nanos t);
  void on_head_done();
  void finish_destage_locked(Nanos t);
  // Completes the queued reads the buffer now covers.
  void serve_buffered_locked(Nanos t);
  uint64_t oldest_destage_seq_locked() const;

  const HddParams params_;
  const HddGeometry geo_;
  const double phase_;  // spindle angle at time 0, in turns

  mutable std::mutex mu_;
  // All below GUARDED_BY(mu_).
  HddReadBuffer buffer_;
  std::deque<Op> queue_;    // host commands waiting for the head, arrival order
  std::deque<Op> destage_;  // cached writes waiting for the head, arrival order
  std::deque<Waiter> blocked_writes_;  // no cache room yet
  std::deque<Waiter> flushes_;         // waiting until destages up to seq are done
  std::optional<Op> current_;          // on the head
  Plan current_plan_{};
  uint64_t head_cyl_ = 0;
  uint64_t head_end_ = 0;  // byte after the last one the head transferred
  uint64_t dirty_bytes_ = 0;
  Nanos link_free_{0};  // the host link is busy until then
  uint64_t next_seq_ = 1;
  uint64_t last_destage_seq_ = 0;
  Counters counters_;
};

}  // namespace tiercache
