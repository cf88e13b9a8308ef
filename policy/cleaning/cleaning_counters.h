// CleaningCounters: what every cleaning policy reports: the batches it started per reason
// (cleaning_batches_<reason>) and the plans that waited (cleaning_waits). Atomic, so the cleaner's
// loop counts while `tiercache stats` reads from another thread.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>

#include "policy/cleaning/cleaning_policy.h"

namespace tiercache {

class CleaningCounters {
 public:
  void count(const CleaningPlan& plan) {
    auto& counter = plan.clean_now ? batches_[static_cast<int>(plan.reason)] : waits_;
    counter.fetch_add(1, std::memory_order_relaxed);
  }

  void visit(const CounterVisitor& visit) const {
    for (int r = 1; r < kCleaningReasons; ++r) {  // a batch always has a reason: skip kNone
      std::string name = std::string("cleaning_batches_") +
                         CleaningReasonName(static_cast<CleaningReason>(r));
      visit(name, batches_[r].load(std::memory_order_relaxed));
    }
    visit("cleaning_waits", waits_.load(std::memory_order_relaxed));
  }

 private:
  std::array<std::atomic<uint64_t>, kCleaningReasons> batches_{};
  std::atomic<uint64_t> waits_{0};
};

}  // namespace tiercache
