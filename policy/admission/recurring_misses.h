// RecurringMisses: AdaptiveAdmission's second look at a first-level miss. A block accessed again
// after several cache turnovers (the next boot's files, the next launch of an application) is a
// first miss to the frequency table, which forgets in about one; RegionHistory remembers it for
// `span`. Such misses form one class, admitted while its blocks come back within half the cache's
// turnover more often than evicted blocks do (LIRS's question, "does the returning set fit?",
// answered from samples). Owns its tables (1.6 bytes per slot + 64-128 KiB); not thread-safe.
#pragma once

#include <cstdint>

#include "policy/admission/region_history.h"
#include "policy/admission/return_ratio.h"
#include "policy/admission/return_tracker.h"

namespace tiercache {

class RecurringMisses {
 public:
  struct Params {
    double span = 8;              // remembered accesses, in capacities
    double entries = 0.4;         // RegionHistory entries per slot
    double margin = 0.15;         // over the eviction ratio, as AdaptiveAdmission's margin
    double turnover_share = 0.5;  // a return counts when within this share of the turnover
  };

  // `min_return` and `eviction_prior`: AdaptiveAdmission's floor and eviction prior.
  RecurringMisses(uint32_t capacity, uint32_t sample_shift, const Params& params,
                  double min_return, double eviction_prior);

  // Every access of the shard, in order (`now` = AdaptiveAdmission's access count). Returns
  // whether the block was accessed before within the span.
  bool observe(uint64_t block, uint64_t now, bool hit);
  // Whether the class's misses are admitted now.
  bool admitted() const;
  // A miss of the class (observe() returned true and the frequency table knew nothing).
  void record_miss(uint64_t block, uint64_t now, bool admitted);
  // Any miss admitted while the shard was full: measures the turnover.
  void count_admission() { ++admissions_; }
  void on_evict(uint64_t block, uint64_t now);

  uint64_t memory_size() const;
  double return_ratio() const;
  double eviction_ratio() const;
  // Accesses for the cache to admit its capacity at the recent rate (huge when it admits none).
  double turnover() const;

 private:
  Params params_;
  double min_return_, eviction_prior_;
  uint32_t capacity_;
  uint64_t span_;  // in accesses; the statistics are halved every two spans
  RegionHistory regions_;
  ReturnTracker returns_;
  uint32_t sweep_steps_;  // tracker entries examined per access, to expire each within a span
  ReturnRatio misses_, evictions_;
  uint64_t accesses_ = 0, admissions_ = 0;  // halved with the statistics
};

}  // namespace tiercache
