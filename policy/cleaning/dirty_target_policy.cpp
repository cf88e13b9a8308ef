#include "policy/cleaning/dirty_target_policy.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace tiercache {
namespace {

CleaningPlan CleanNow(CleaningReason reason, uint32_t max_blocks, CleaningOrder order) {
  CleaningPlan plan;
  plan.clean_now = true;
  plan.max_blocks = max_blocks;
  plan.order = order;
  plan.reason = reason;
  return plan;
}

CleaningPlan Wait(Nanos recheck_after, uint64_t wake_at_dirty_blocks, CleaningReason reason) {
  CleaningPlan plan;
  plan.recheck_after = recheck_after;
  plan.wake_at_dirty_blocks = wake_at_dirty_blocks;
  plan.reason = reason;
  return plan;
}

}  // namespace

DirtyTargetPolicy::DirtyTargetPolicy(const CleaningOptions& options) : options_(options) {
  assert(options.validate().ok());
}

CleaningPlan DirtyTargetPolicy::plan(const CleaningInputs& inputs) {
  CleaningPlan plan = decide(inputs);
  counters_.count(plan);
  return plan;
}

uint64_t DirtyTargetPolicy::Threshold(double ratio, uint64_t total_blocks) {
  return uint64_t(std::floor(ratio * double(total_blocks)));
}

// Reasons by urgency: drain, age, high, idle; then the active-clients cases.
CleaningPlan DirtyTargetPolicy::decide(const CleaningInputs& in) const {
  if (in.dirty_blocks == 0) return Wait(kNeverRecheck, 1, CleaningReason::kNone);
  if (in.drain_requested) {
    return CleanNow(CleaningReason::kDrain, options_.idle_batch_blocks, CleaningOrder::kLba);
  }
  bool idle = in.since_foreground >= options_.idle_after;
  uint32_t batch = idle ? options_.idle_batch_blocks : options_.busy_batch_blocks;
  // The age bound is a promise, so it overrides the busy share (only as long as blocks near it).
  if (in.oldest_dirty_age >= options_.max_dirty_age - options_.age_margin) {
    return CleanNow(CleaningReason::kAge, batch, CleaningOrder::kOldestFirst);
  }
  if (in.dirty_blocks > Threshold(options_.dirty_high, in.total_blocks)) {
    return CleanNow(CleaningReason::kHigh, batch, CleaningOrder::kLba);
  }
  if (idle) {
    CleaningPlan plan = CleanNow(CleaningReason::kIdle, batch, CleaningOrder::kLba);
    plan.yield_to_clients = true;
    return plan;
  }
  return decide_active(in);
}

CleaningPlan DirtyTargetPolicy::decide_active(const CleaningInputs& in) const {
  // Both positive here: not idle, and the age trigger not reached.
  Nanos until_idle = options_.idle_after - in.since_foreground;
  Nanos until_age = options_.max_dirty_age - options_.age_margin - in.oldest_dirty_age;
  Nanos recheck = std::min(until_idle, until_age);
  uint64_t target = Threshold(options_.dirty_target, in.total_blocks);
  if (in.dirty_blocks <= target) return Wait(recheck, target + 1, CleaningReason::kNone);
  Nanos wait = duty_cycle_wait(in);
  if (wait <= Nanos(0)) {
    return CleanNow(CleaningReason::kRatio, options_.busy_batch_blocks, CleaningOrder::kLba);
  }
  uint64_t high = Threshold(options_.dirty_high, in.total_blocks);
  return Wait(std::min(recheck, wait), high + 1, CleaningReason::kRatio);
}

Nanos DirtyTargetPolicy::duty_cycle_wait(const CleaningInputs& in) const {
  if (in.last_batch_duration <= Nanos(0)) return Nanos(0);
  double share = options_.busy_share;
  double pause = double(in.last_batch_duration.count()) * (1.0 - share) / share;
  // Clamped far below Nanos::max() so that nothing below overflows on absurd inputs.
  pause = std::min(pause, double(int64_t{1} << 62));
  return Nanos(std::llround(pause)) - (in.now - in.last_batch_end);
}

}  // namespace tiercache
