// Cleaner: writes dirty sectors back to the core in LBA order, in batches, on the background loop.
// A batch: lock each line (shared), copy its dirty sectors SSD -> core, unlock; flush the core; then
// clear the dirty bits of lines no write touched meanwhile and persist their records. It runs when
// dirty lines pass the high watermark, when the volume has been idle for a while (re-checking
// between batches, so foreground I/O is never starved), and on demand (clean_all).
// Thread-safe: public methods post to the background loop; all state lives there.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "cachelib/common/event_loop.h"
#include "cachelib/device/device.h"

namespace tiercache {

class Engine;

class Cleaner {
 public:
  explicit Cleaner(Engine& engine);
  ~Cleaner();

  // A line became dirty: arm the idle timer if it is not armed.
  void note_dirty();
  // Dirty data passed the watermark (or a write found no line): clean now.
  void kick();
  // Cleans until no dirty line is left; progress(remaining dirty lines) after each batch.
  void clean_all(std::function<void(uint64_t)> progress, IoCallback done);
  // Stops starting batches; done once the running batch (if any) finished.
  void stop(IoCallback done);

 private:
  struct Batch;

  void on_idle_timer();
  void maybe_run();
  void arm_idle_timer();
  void after_batch(Status status);
  void run_batch();
  void clean_line(std::shared_ptr<Batch> batch, uint64_t index);
  void finish_batch(std::shared_ptr<Batch> batch, Status status);
  std::vector<uint64_t> pick_lines(uint32_t count);
  bool above_watermark() const;

  Engine& engine_;
  EventLoop* loop_;
  // Background-loop state.
  bool running_ = false;
  bool stopping_ = false;
  bool urgent_ = false;     // above the watermark, or a write found no line
  bool idle_mode_ = false;  // cleaning because the volume went idle
  // Dirty core lines to clean next, sorted; refilled from the shards when used up.
  static constexpr size_t kPlanLines = 4096;
  std::vector<uint64_t> plan_;
  size_t plan_pos_ = 0;
  uint64_t last_ops_seen_ = 0;
  std::vector<std::pair<std::function<void(uint64_t)>, IoCallback>> drain_waiters_;
  IoCallback stop_done_;
  std::atomic<bool> timer_armed_{false};
  uint64_t timer_id_ = 0;
};

}  // namespace tiercache
