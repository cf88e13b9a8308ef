// Replayer: executes a Trace against a Device on the current event loop, keeping the trace's order
// and dependencies (trace.h), and measures it: elapsed time from start to the last completion,
// bytes, operations, mean latency. Offsets and lengths are aligned outward to the device block
// size; offsets past the device end wrap around (so a trace from a bigger disk still replays).
// Works on any EventLoop (virtual or real time).
//
// Ownership: does not own the device or the trace; both must outlive the replay.
// Thread-safety: single loop; start() and all callbacks run on the loop that called start().
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "bench/workloads/trace.h"
#include "cachelib/common/event_loop.h"
#include "cachelib/device/device.h"

namespace tiercache::bench {

struct ReplayStats {
  Nanos elapsed{0};
  uint64_t ops = 0, reads = 0, writes = 0, flushes = 0, discards = 0;
  uint64_t bytes_read = 0, bytes_written = 0;
  uint64_t errors = 0;
  Status first_error;
  Nanos total_latency{0};  // sum over data operations of completion - issue

  double seconds() const { return static_cast<double>(elapsed.count()) / 1e9; }
  // 10^6 bytes per second over read + written bytes.
  double mb_per_s() const;
  double iops() const;
  double mean_latency_us() const;
};

class Replayer {
 public:
  using DoneCallback = std::function<void(const ReplayStats&)>;

  // `data_seed` fills the bytes written.
  Replayer(Device& device, const Trace& trace, uint64_t data_seed = 1);
  ~Replayer();
  Replayer(const Replayer&) = delete;
  Replayer& operator=(const Replayer&) = delete;

  // Starts issuing; `done` runs on this loop after the last completion (at once for an empty
  // trace, but never inline). REQUIRES: called on an event-loop thread, at most once.
  void start(DoneCallback done);
  bool finished() const { return finished_; }
  const ReplayStats& stats() const { return stats_; }
  // When each record completed, relative to start() (Nanos(-1): not completed). For per-position
  // figures such as HD Tune's curve (hdtune.h).
  std::vector<Nanos> completion_times() const;

 private:
  struct Aligned {
    uint64_t offset, length;
  };
  Aligned align(const TraceRecord& r) const;
  void pump();
  void issue(size_t index);
  void on_complete(size_t index, const Status& status);
  std::byte* acquire_buffer();
  void release_buffer(std::byte* buf);

  Device& device_;
  const Trace& trace_;
  EventLoop* loop_ = nullptr;
  DoneCallback done_;
  uint64_t buffer_bytes_ = 0;
  std::vector<std::byte> write_data_;
  std::vector<std::unique_ptr<std::byte[]>> buffers_;
  std::vector<std::byte*> free_buffers_;
  std::vector<Nanos> issued_at_, completed_at_;  // completed_at_ < 0: not yet
  size_t next_ = 0;
  size_t completed_ = 0;
  Nanos start_{0}, last_issue_{0};
  bool timer_armed_ = false;
  bool finished_ = false;
  // Destruction-safe guard for timers and callbacks scheduled on the loop.
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  ReplayStats stats_;
};

}  // namespace tiercache::bench
