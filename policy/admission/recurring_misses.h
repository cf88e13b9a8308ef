// RecurringMisses: AdaptiveAdmission's second look at a first-level miss. A block accessed again
// after several cache turnovers (the next boot's files, the next launch of an application) is a
// first miss to the frequency table, which forgets in about one; RegionHistory remembers it for
// `span`. Such misses form one class. A returning set larger than the cache, admitted whole,
// evicts itself before it comes back (as a loop does), so the class admits a fixed hash-chosen
// share of its blocks, LIRS's resident set, and learns the share from its sampled admissions: a
// first hit raises it, an eviction before any hit lowers it. Owns its tables (1.6 bytes per slot
// + 64-128 KiB); not thread-safe.
#pragma once

#include <cstdint>

#include "policy/admission/region_history.h"
#include "policy/admission/return_tracker.h"

namespace tiercache {

class RecurringMisses {
 public:
  struct Params {
    double span = 12;         // remembered accesses, in capacities
    double entries = 0.4;     // RegionHistory entries per slot
    double share_up = 0.01;   // added to the share by a sampled admission's first hit
    double share_down = 0.2;  // taken from it by a sampled admission evicted unhit
    double min_share = 0.05;  // its floor: admissions go on, so the share can grow again
    // The share before any evidence. Below 1: a class admitted whole at first (a loop's second
    // pass) is hit late by the part that survived its own churn, and those hits would take the
    // share straight back to 1 for a second wave.
    double initial_share = 0.9;
    bool operator==(const Params&) const = default;
  };

  // `sample_shift` and `sample_seed`: the sample AdaptiveAdmission's ReturnTracker follows.
  RecurringMisses(uint32_t capacity, uint32_t sample_shift, uint32_t sample_seed,
                  const Params& params);

  // Every access of the shard, in order (`now` = AdaptiveAdmission's access count). Returns
  // whether the block was accessed before within the span.
  bool observe(uint64_t block, uint64_t now, bool hit);
  // Whether a miss of the class (observe() returned true and the frequency table knew nothing)
  // is admitted: its block falls within the share.
  bool admits(uint64_t block) const;
  // A miss of the class was admitted.
  void record_admission(uint64_t block, uint64_t now);
  void on_evict(uint64_t block);

  double share() const { return share_; }
  // Sampled admissions of the class hit within the span, and evicted before any hit.
  uint64_t sampled_hits() const { return hits_; }
  uint64_t sampled_wasted() const { return wasted_; }
  uint64_t memory_size() const;

 private:
  Params params_;
  RegionHistory regions_;
  ReturnTracker admissions_;  // sampled admissions of the class: hit yet?
  uint32_t sweep_steps_;      // tracker entries examined per access, to expire each within a span
  double share_;
  uint64_t hits_ = 0, wasted_ = 0;
};

}  // namespace tiercache
