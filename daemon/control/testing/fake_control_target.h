// FakeControlTarget: a scriptable ControlTarget for tests of the control server and the CLI.
// The test sets the snapshots and decides how asynchronous calls complete: inline (inside the
// call), on another thread, or held until the test releases them. Records every call. Thread-safe.
#pragma once

#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "daemon/control/control_target.h"

namespace tiercache::testing {

class FakeControlTarget final : public ControlTarget {
 public:
  enum class Completion {
    kInline,       // callbacks run inside set_mode / clean_all / stop
    kOtherThread,  // callbacks run on a separate thread
    kHeld,         // callbacks wait for send_progress() / release()
  };

  FakeControlTarget();
  ~FakeControlTarget() override;

  // Scripting.
  void set_status(const ControlStatus& status);
  void set_counters(const CacheCounters& counters);
  void set_latency(const CacheLatency& latency);
  void set_current_mode(CacheMode mode);
  void set_policy_report(const PolicyReport& report);
  void set_completion(Completion completion);
  // The outcome of the next asynchronous calls (default OK).
  void set_result(Status status);
  // The bytes a successful detach reports.
  void set_detach_bytes(uint64_t bytes);
  // Progress values clean_all and detach report before done (kInline / kOtherThread).
  void set_flush_progress(std::vector<uint64_t> remaining);
  // kHeld: reports progress for the held clean_all; then completes the held call.
  void send_progress(uint64_t remaining);
  void release(Status status);
  bool has_held() const;
  // Blocks until a call is held (kHeld).
  void wait_held();

  // Observations.
  std::vector<std::pair<CacheMode, bool>> mode_calls() const;
  int clean_calls() const;
  int stop_calls() const;
  int detach_calls() const;
  int reset_health_calls() const;
  std::vector<PolicyOptions> policy_calls() const;
  std::vector<std::pair<std::string, CleaningOptions>> cleaning_calls() const;

  ControlStatus status() const override;
  CacheCounters counters() const override;
  CacheLatency latency() const override;
  CacheMode mode() const override;
  PolicyReport policy_report() const override;
  void set_mode(CacheMode mode, bool drain, DoneCallback done) override;
  void clean_all(ProgressCallback progress, DoneCallback done) override;
  void stop(DoneCallback done) override;
  void detach(ProgressCallback progress, DetachCallback done) override;
  // On success the status' health becomes "ok".
  void reset_health(DoneCallback done) override;
  // On success the status' policies become `next`.
  void set_policies(const PolicyOptions& next, DoneCallback done) override;
  // On success the policy report's cleaning becomes `policy` and `options`.
  void set_cleaning(const std::string& policy, const CleaningOptions& options,
                    DoneCallback done) override;

 private:
  void set_status_state(const std::string& state);
  // Runs progress values (if any) then done, as the completion setting says.
  void complete(ProgressCallback progress, std::vector<uint64_t> values, DoneCallback done,
                std::function<void()> on_success);

  mutable std::mutex mu_;
  std::condition_variable held_cv_;
  ControlStatus status_;
  CacheCounters counters_;
  CacheLatency latency_;
  CacheMode mode_ = CacheMode::kWriteThrough;
  PolicyReport policy_report_;
  Completion completion_ = Completion::kInline;
  Status result_;
  std::vector<uint64_t> flush_progress_;
  ProgressCallback held_progress_;
  DoneCallback held_done_;
  std::function<void()> held_success_;
  std::vector<std::pair<CacheMode, bool>> mode_calls_;
  int clean_calls_ = 0;
  int stop_calls_ = 0;
  int detach_calls_ = 0;
  int reset_health_calls_ = 0;
  std::vector<PolicyOptions> policy_calls_;
  std::vector<std::pair<std::string, CleaningOptions>> cleaning_calls_;
  uint64_t detach_bytes_ = 0;
  std::vector<std::thread> threads_;
};

}  // namespace tiercache::testing
