#include "cachelib/engine/ssd_health.h"

namespace tiercache {

const char* SsdHealthName(SsdHealthState state) {
  switch (state) {
    case SsdHealthState::kOk: return "ok";
    case SsdHealthState::kDegraded: return "degraded";
    case SsdHealthState::kFailed: return "failed";
  }
  return "unknown";
}

bool SsdHealth::record(SsdErrorKind kind, Nanos now) {
  switch (kind) {
    case SsdErrorKind::kRead: read_errors_.fetch_add(1, std::memory_order_relaxed); break;
    case SsdErrorKind::kWrite: write_errors_.fetch_add(1, std::memory_order_relaxed); break;
    case SsdErrorKind::kPersist: persist_errors_.fetch_add(1, std::memory_order_relaxed); break;
  }
  std::lock_guard lock(mu_);
  ++since_reset_;
  if (threshold_ == 0 || failed_.load(std::memory_order_relaxed)) return false;
  recent_.push_back(now);
  while (!recent_.empty() && now - recent_.front() >= window_) recent_.pop_front();
  if (recent_.size() < threshold_) return false;
  recent_.clear();
  failed_.store(true, std::memory_order_release);
  failovers_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void SsdHealth::reset() {
  std::lock_guard lock(mu_);
  recent_.clear();
  since_reset_ = 0;
  failed_.store(false, std::memory_order_release);
}

SsdHealthState SsdHealth::state() const {
  std::lock_guard lock(mu_);
  if (failed_.load(std::memory_order_relaxed)) return SsdHealthState::kFailed;
  return since_reset_ == 0 ? SsdHealthState::kOk : SsdHealthState::kDegraded;
}

}  // namespace tiercache
