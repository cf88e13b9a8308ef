// DirtyTargetPolicy ("target", the default): targets a dirty ratio, bounds dirty age and keeps
// foreground work first. While clients are active it cleans only above dirty_target, taking at
// most busy_share of wall time; when idle it drains in LBA order in large batches; above
// dirty_high, or when the oldest dirty block nears max_dirty_age, it cleans back to back.
// Decisions are a pure function of the inputs (exactly testable); the only state is counters.
// Not thread-safe (the cleaner's loop), except visit_counters().
#pragma once

#include <cstdint>

#include "policy/cleaning/cleaning_counters.h"
#include "policy/cleaning/cleaning_options.h"
#include "policy/cleaning/cleaning_policy.h"

namespace tiercache {

class DirtyTargetPolicy final : public CleaningPolicy {
 public:
  // REQUIRES: options.validate().ok().
  explicit DirtyTargetPolicy(const CleaningOptions& options);

  const char* name() const override { return "target"; }
  CleaningPlan plan(const CleaningInputs& inputs) override;
  uint64_t memory_size() const override { return 0; }
  void visit_counters(const CounterVisitor& visit) const override { counters_.visit(visit); }

 private:
  CleaningPlan decide(const CleaningInputs& in) const;
  // Plans for clients still active, with no urgent reason to clean.
  CleaningPlan decide_active(const CleaningInputs& in) const;
  // How long until the duty cycle lets the next batch start (<= 0: now).
  Nanos duty_cycle_wait(const CleaningInputs& in) const;
  // The largest dirty block count not above `ratio` of the cache.
  static uint64_t Threshold(double ratio, uint64_t total_blocks);

  const CleaningOptions options_;
  CleaningCounters counters_;
};

}  // namespace tiercache
