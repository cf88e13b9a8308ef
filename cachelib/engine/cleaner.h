// Cleaner: the mechanism that writes dirty sectors back to the core; the cleaning policy
// (policy/cleaning/, CacheOptions::cleaning) decides when, how much and which first. A batch, in
// groups of adjacent lines (a few in flight): lock each line (shared), copy its dirty sectors
// SSD -> core (adjacent dirty sectors as one core write, WritebackRun), unlock; once all are
// done flush the core; then clear the dirty bits of lines no write touched meanwhile and persist
// their records. Lines come in LBA order (sorted windows of the shards' dirty bitmaps) or, to
// keep the age bound, oldest epoch first. Between batches it asks the policy again, and an idle
// batch stops at a client request, so foreground I/O is never starved.
// Thread-safe: public methods post to the background loop; all state lives there.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cachelib/common/event_loop.h"
#include "cachelib/device/device.h"
#include "policy/cleaning/cleaning_options.h"
#include "policy/cleaning/cleaning_policy.h"

namespace tiercache {

class Engine;

// What `tiercache status` shows of the cleaner. Ages and times in nanoseconds.
struct CleanerStatus {
  std::string policy;
  CleaningOptions options;  // the policy's knobs
  int64_t oldest_dirty_age_ns = 0;  // upper bound, within max_dirty_age / 2
  int64_t flush_eta_ns = -1;        // at the last measured cleaning rate; -1: not measured yet
  uint64_t clean_rate_bytes_per_s = 0;
  std::string last_reason = "none";  // why the last plan cleaned or waited
  // Why the last batch failed (a core write or flush, an SSD read, a persist); empty once one
  // succeeds. While set, flush_eta_ns is -1: the rate says nothing about a failing device.
  std::string last_error;
};

class Cleaner {
 public:
  explicit Cleaner(Engine& engine);
  ~Cleaner();

  // Builds the cleaning policy named in the options; InvalidArgument if unknown or invalid.
  Status init();
  // A line became dirty: asks the policy again once the dirty count reaches what it waits for.
  void note_dirty();
  // A write found no line to use: ask the policy now.
  void kick();
  // Cleans until no dirty line is left; progress(remaining dirty lines) after each batch.
  void clean_all(std::function<void(uint64_t)> progress, IoCallback done);
  // Stops starting batches; done once the running batch (if any) finished.
  void stop(IoCallback done);
  // Runs policy `name` with `options` from the next decision on (a running batch completes
  // first); the policy starts with fresh counters. InvalidArgument for an unknown name or invalid
  // options, Busy once stop() was called: the policy in use stays.
  void set_policy(const std::string& name, const CleaningOptions& options, IoCallback done);
  CleanerStatus status() const;
  void visit_counters(const CounterVisitor& visit) const;

  // The pause before the next batch after `failures` failed batches in a row: idle_after,
  // doubled for each failure after the first, at most kMaxRetryDelay (or idle_after if longer).
  static constexpr Nanos kMaxRetryDelay = std::chrono::seconds(30);
  static Nanos RetryDelay(Nanos idle_after, uint64_t failures);
  // How many of `sorted_lines` (ascending core lines) form at most `max_runs` runs of adjacent
  // lines: the batch's share of them.
  static size_t RunsPrefix(const std::vector<uint64_t>& sorted_lines, uint32_t max_runs);

 private:
  struct Batch;

  void post_decide();
  void decide();
  CleaningInputs inputs(Nanos now);
  void wait(const CleaningPlan& plan, uint64_t dirty);
  void finish_drains();
  void run_batch(const CleaningPlan& plan);
  std::vector<uint64_t> pick_lines(uint32_t count, CleaningOrder order);
  // Starts the batch's next groups of adjacent lines while fewer than writes_in_flight are
  // being copied: a line is locked only from its group's start to its copy's end.
  void start_groups(const std::shared_ptr<Batch>& batch);
  // An idle batch met a client request: starts no more groups; the lines not started stay
  // dirty and, in LBA order, come first in the next batch.
  void skip_rest(const std::shared_ptr<Batch>& batch);
  // Locks group `g`'s lines, waits for their limbo lines' free record, copies the ready ones.
  void start_group(const std::shared_ptr<Batch>& batch, size_t g);
  // Locks entry `index`'s line, notes its dirty sectors, waits for its limbo line's free record;
  // then marks it ready (while start_group collects) or copies it.
  void clean_line(std::shared_ptr<Batch> batch, uint64_t index);
  // Under their locks: copies the entries' dirty sectors SSD -> core, adjacent ones (in the
  // order given, ascending core lines) coalesced into WritebackRuns of at most
  // CleaningOptions::max_write_bytes; unlocks each line once its pieces completed, then arrives.
  void copy_lines(const std::shared_ptr<Batch>& batch, const std::vector<uint64_t>& indices);
  // Entry `index` is done (copied, skipped or failed): its group's end starts the next group,
  // and the batch finishes with its last entry.
  void arrive(const std::shared_ptr<Batch>& batch, uint64_t index, Status s);
  void finish_batch(std::shared_ptr<Batch> batch, Status status);
  void after_batch(const Batch& batch, Status status);
  // Logs the first failure of a streak and the recovery after one; keeps the error for status().
  void note_batch_result(const Status& status);

  Engine& engine_;
  EventLoop* loop_;
  // Replaced on the loop under report_mu_, which other threads' reads (status, counters) take.
  mutable std::mutex report_mu_;
  std::shared_ptr<CleaningPolicy> policy_;
  CleaningOptions options_;
  // Dirty lines at which note_dirty() asks the policy again (any thread reads it).
  std::atomic<uint64_t> wake_at_{1};
  std::atomic<bool> decide_posted_{false};
  // Background-loop state.
  bool running_ = false;
  bool stopping_ = false;
  uint64_t timer_id_ = 0;
  bool timer_armed_ = false;
  uint64_t last_ops_seen_ = 0;
  Nanos last_foreground_{0};
  Nanos last_batch_end_{0}, last_batch_duration_{0};
  uint64_t last_batch_blocks_ = 0, last_batch_bytes_ = 0;
  // Dirty core lines to clean next, sorted; refilled from the shards when used up.
  static constexpr size_t kPlanLines = 4096;
  std::vector<uint64_t> plan_;
  size_t plan_pos_ = 0;
  std::vector<std::pair<std::function<void(uint64_t)>, IoCallback>> drain_waiters_;
  IoCallback stop_done_;
  // For status(), from any thread.
  // When the oldest dirty data became dirty (clock time), as of the last decision: status()
  // reports the age as of its call, so a policy that decides rarely (nop) does not show it frozen.
  std::atomic<int64_t> oldest_dirty_since_ns_{0};
  std::atomic<uint64_t> rate_bytes_per_s_{0};
  std::atomic<int> last_reason_{0};
  // Failing batches in a row (background loop), and the last one's error (under report_mu_).
  uint64_t failed_batches_ = 0;
  std::string last_error_;
};

}  // namespace tiercache
