// NopCleaningPolicy ("nop"): never cleans on its own; dirty data stays on the SSD until a drain is
// requested (`tiercache flush`, a mode switch leaving wb, close), which it runs at full speed in
// LBA order. Running out of clean slots is then the engine's to handle (e.g. by a drain).
// Not thread-safe (the cleaner's loop), except visit_counters().
#pragma once

#include <cstdint>

#include "policy/cleaning/cleaning_counters.h"
#include "policy/cleaning/cleaning_policy.h"

namespace tiercache {

class NopCleaningPolicy final : public CleaningPolicy {
 public:
  // `drain_batch_blocks`: blocks per batch while draining (CleaningOptions::idle_batch_blocks).
  explicit NopCleaningPolicy(uint32_t drain_batch_blocks)
      : drain_batch_blocks_(drain_batch_blocks) {}

  const char* name() const override { return "nop"; }

  CleaningPlan plan(const CleaningInputs& inputs) override {
    CleaningPlan plan;  // wait for a drain: no timer, no dirty threshold
    if (inputs.drain_requested && inputs.dirty_blocks > 0) {
      plan.clean_now = true;
      plan.max_blocks = drain_batch_blocks_;
      plan.order = CleaningOrder::kLba;
      plan.reason = CleaningReason::kDrain;
    }
    counters_.count(plan);
    return plan;
  }

  uint64_t memory_size() const override { return 0; }
  void visit_counters(const CounterVisitor& visit) const override { counters_.visit(visit); }

 private:
  const uint32_t drain_batch_blocks_;
  CleaningCounters counters_;
};

}  // namespace tiercache
