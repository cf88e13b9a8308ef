// CleaningPolicy: decides when write-back dirty data goes to the core, how much at a time and
// which first. The cleaner (engine) keeps the mechanism: it picks the dirty blocks, copies them
// SSD -> core, flushes and marks them clean, and describes the cache to the policy at each
// decision. One instance per cache, called on the cleaner's loop only (not thread-safe), except
// visit_counters(), which any thread may call. Policies never do I/O and never read a clock.
#pragma once

#include <cstdint>
#include <limits>

#include "cachelib/common/clock.h"
#include "policy/common/policy_counters.h"

namespace tiercache {

// What the cleaner knows when it asks. Blocks are 4 KiB cache slots.
struct CleaningInputs {
  Nanos now{0};                    // the cleaner's clock
  uint64_t dirty_blocks = 0;
  uint64_t total_blocks = 0;       // blocks the cache can hold
  Nanos oldest_dirty_age{0};       // now minus when the oldest dirty block became dirty; 0 if none
  Nanos since_foreground{0};       // now minus the last foreground request (Nanos::max(): never)
  bool drain_requested = false;    // `tiercache flush`, a mode switch leaving wb, close
  Nanos last_batch_end{0};         // when the last batch finished (its flush included)
  Nanos last_batch_duration{0};    // how long it took; 0 if there was none
  uint64_t last_batch_blocks = 0;  // blocks it wrote to the core
  uint64_t last_batch_bytes = 0;   // bytes it wrote to the core
};

// Why a plan cleans (or, for kRatio, waits): shown by `tiercache status`, counted per reason.
enum class CleaningReason : uint8_t {
  kNone,   // nothing to do (clean enough, clients active)
  kDrain,  // asked to write everything back
  kAge,    // the oldest dirty block nears max_dirty_age
  kHigh,   // dirty blocks above the high ratio
  kIdle,   // no foreground request for a while
  kRatio,  // dirty blocks above the target ratio; cleaning within the busy share
};
inline constexpr int kCleaningReasons = 6;

inline const char* CleaningReasonName(CleaningReason reason) {
  static constexpr const char* kNames[kCleaningReasons] = {"none", "drain", "age",
                                                           "high", "idle",  "ratio"};
  return kNames[static_cast<int>(reason)];
}

// The order in which the cleaner takes dirty blocks.
enum class CleaningOrder : uint8_t {
  kLba,          // ascending LBA from the cleaner's cursor, wrapping: writes coalesce on the core
  kOldestFirst,  // least recently dirtied first: keeps the age bound
};

inline constexpr Nanos kNeverRecheck = Nanos::max();
inline constexpr uint64_t kNeverWake = std::numeric_limits<uint64_t>::max();

// The answer. clean_now: run one batch of at most max_blocks blocks in `order`, then ask again.
// Otherwise ask again after recheck_after, or sooner once dirty_blocks reaches
// wake_at_dirty_blocks or a drain is requested. Foreground requests need not wake the cleaner:
// recheck_after already covers the moment the cache would turn idle.
struct CleaningPlan {
  bool clean_now = false;
  uint32_t max_blocks = 0;                  // clean_now only
  CleaningOrder order = CleaningOrder::kLba;  // clean_now only
  Nanos recheck_after = kNeverRecheck;      // !clean_now only: delay from inputs.now
  uint64_t wake_at_dirty_blocks = kNeverWake;  // !clean_now only
  CleaningReason reason = CleaningReason::kNone;
  // clean_now only: the batch is for an idle cache, so it stops starting copies once a client
  // request arrives (the copies in flight finish; the rest stays dirty for the next plan).
  bool yield_to_clients = false;

  bool operator==(const CleaningPlan&) const = default;
};

class CleaningPolicy {
 public:
  virtual ~CleaningPolicy() = default;
  virtual const char* name() const = 0;
  // The next step given `inputs`. With no dirty block the plan never cleans, even on a drain:
  // the cleaner then completes the drain itself.
  virtual CleaningPlan plan(const CleaningInputs& inputs) = 0;
  // Heap bytes held (nothing per cache slot for the policies here).
  virtual uint64_t memory_size() const = 0;
  // Thread-safe.
  virtual void visit_counters(const CounterVisitor& visit) const {}
};

}  // namespace tiercache
