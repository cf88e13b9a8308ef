#include "daemon/control/testing/fake_control_target.h"

namespace tiercache::testing {

FakeControlTarget::FakeControlTarget() = default;

FakeControlTarget::~FakeControlTarget() {
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mu_);
    threads.swap(threads_);
  }
  for (auto& t : threads) t.join();
}

void FakeControlTarget::set_status(const ControlStatus& status) {
  std::lock_guard lock(mu_);
  status_ = status;
}

void FakeControlTarget::set_counters(const CacheCounters& counters) {
  std::lock_guard lock(mu_);
  counters_ = counters;
}

void FakeControlTarget::set_latency(const CacheLatency& latency) {
  std::lock_guard lock(mu_);
  latency_ = latency;
}

void FakeControlTarget::set_current_mode(CacheMode mode) {
  std::lock_guard lock(mu_);
  mode_ = mode;
}

void FakeControlTarget::set_policy_report(const PolicyReport& report) {
  std::lock_guard lock(mu_);
  policy_report_ = report;
}

void FakeControlTarget::set_completion(Completion completion) {
  std::lock_guard lock(mu_);
  completion_ = completion;
}

void FakeControlTarget::set_result(Status status) {
  std::lock_guard lock(mu_);
  result_ = std::move(status);
}

void FakeControlTarget::set_flush_progress(std::vector<uint64_t> remaining) {
  std::lock_guard lock(mu_);
  flush_progress_ = std::move(remaining);
}

void FakeControlTarget::send_progress(uint64_t remaining) {
  ProgressCallback progress;
  {
    std::lock_guard lock(mu_);
    progress = held_progress_;
  }
  if (progress) progress(remaining);
}

void FakeControlTarget::release(Status status) {
  DoneCallback done;
  std::function<void()> on_success;
  {
    std::lock_guard lock(mu_);
    done = std::move(held_done_);
    on_success = std::move(held_success_);
    held_done_ = nullptr;
    held_progress_ = nullptr;
  }
  if (status.ok() && on_success) on_success();
  if (done) done(std::move(status));
}

bool FakeControlTarget::has_held() const {
  std::lock_guard lock(mu_);
  return held_done_ != nullptr;
}

void FakeControlTarget::wait_held() {
  std::unique_lock lock(mu_);
  held_cv_.wait(lock, [this] { return held_done_ != nullptr; });
}

std::vector<std::pair<CacheMode, bool>> FakeControlTarget::mode_calls() const {
  std::lock_guard lock(mu_);
  return mode_calls_;
}

int FakeControlTarget::clean_calls() const {
  std::lock_guard lock(mu_);
  return clean_calls_;
}

void FakeControlTarget::set_detach_bytes(uint64_t bytes) {
  std::lock_guard lock(mu_);
  detach_bytes_ = bytes;
}

int FakeControlTarget::detach_calls() const {
  std::lock_guard lock(mu_);
  return detach_calls_;
}

int FakeControlTarget::reset_health_calls() const {
  std::lock_guard lock(mu_);
  return reset_health_calls_;
}

int FakeControlTarget::stop_calls() const {
  std::lock_guard lock(mu_);
  return stop_calls_;
}

ControlStatus FakeControlTarget::status() const {
  std::lock_guard lock(mu_);
  return status_;
}

CacheCounters FakeControlTarget::counters() const {
  std::lock_guard lock(mu_);
  return counters_;
}

CacheLatency FakeControlTarget::latency() const {
  std::lock_guard lock(mu_);
  return latency_;
}

CacheMode FakeControlTarget::mode() const {
  std::lock_guard lock(mu_);
  return mode_;
}

PolicyReport FakeControlTarget::policy_report() const {
  std::lock_guard lock(mu_);
  return policy_report_;
}

void FakeControlTarget::set_mode(CacheMode mode, bool drain, DoneCallback done) {
  {
    std::lock_guard lock(mu_);
    mode_calls_.emplace_back(mode, drain);
  }
  complete(nullptr, {}, std::move(done), [this, mode] { set_current_mode(mode); });
}

void FakeControlTarget::set_policies(const PolicyOptions& next, DoneCallback done) {
  {
    std::lock_guard lock(mu_);
    policy_calls_.push_back(next);
  }
  complete(nullptr, {}, std::move(done), [this, next] {
    std::lock_guard lock(mu_);
    status_.policies = next;
  });
}

std::vector<PolicyOptions> FakeControlTarget::policy_calls() const {
  std::lock_guard lock(mu_);
  return policy_calls_;
}

void FakeControlTarget::set_cleaning(const std::string& policy, const CleaningOptions& options,
                                     DoneCallback done) {
  {
    std::lock_guard lock(mu_);
    cleaning_calls_.emplace_back(policy, options);
  }
  complete(nullptr, {}, std::move(done), [this, policy, options] {
    std::lock_guard lock(mu_);
    policy_report_.cleaning = policy;
    policy_report_.cleaning_options = options;
  });
}

std::vector<std::pair<std::string, CleaningOptions>> FakeControlTarget::cleaning_calls() const {
  std::lock_guard lock(mu_);
  return cleaning_calls_;
}

void FakeControlTarget::clean_all(ProgressCallback progress, DoneCallback done) {
  std::vector<uint64_t> values;
  {
    std::lock_guard lock(mu_);
    ++clean_calls_;
    values = flush_progress_;
  }
  complete(std::move(progress), std::move(values), std::move(done), nullptr);
}

void FakeControlTarget::stop(DoneCallback done) {
  {
    std::lock_guard lock(mu_);
    ++stop_calls_;
    status_.state = "stopping";
  }
  complete(nullptr, {}, std::move(done), nullptr);
}

void FakeControlTarget::detach(ProgressCallback progress, DetachCallback done) {
  std::vector<uint64_t> values;
  uint64_t bytes;
  {
    std::lock_guard lock(mu_);
    ++detach_calls_;
    values = flush_progress_;
    bytes = detach_bytes_;
  }
  auto finish = [done = std::move(done), bytes](Status s) {
    done(s.ok() ? Result<uint64_t>(bytes) : Result<uint64_t>(std::move(s)));
  };
  complete(std::move(progress), std::move(values), std::move(finish),
           [this] { set_status_state("stopping"); });
}

void FakeControlTarget::reset_health(DoneCallback done) {
  {
    std::lock_guard lock(mu_);
    ++reset_health_calls_;
  }
  complete(nullptr, {}, std::move(done), [this] {
    std::lock_guard lock(mu_);
    status_.health = CacheHealth{};
  });
}

void FakeControlTarget::set_status_state(const std::string& state) {
  std::lock_guard lock(mu_);
  status_.state = state;
}

void FakeControlTarget::complete(ProgressCallback progress, std::vector<uint64_t> values,
                                 DoneCallback done, std::function<void()> on_success) {
  std::unique_lock lock(mu_);
  Status result = result_;
  auto run = [progress, values, done, on_success, result] {
    for (uint64_t v : values) progress(v);
    if (result.ok() && on_success) on_success();
    done(result);
  };
  switch (completion_) {
    case Completion::kHeld:
      held_progress_ = std::move(progress);
      held_done_ = std::move(done);
      held_success_ = std::move(on_success);
      held_cv_.notify_all();
      return;
    case Completion::kOtherThread:
      threads_.emplace_back(run);
      return;
    case Completion::kInline:
      lock.unlock();
      run();
      return;
  }
}

}  // namespace tiercache::testing
