// AdaptiveAdmission: the default admission policy. While the shard has free slots every miss is
// admitted; once full, a miss is admitted when misses at its frequency level have lately come back
// soon (within about one cache turnover, so they would have been hits) at least as often as a bar:
// min_return, raised to the share of evicted blocks that come back plus a margin (each admission
// evicts one; on a tie the cached block stays). While new blocks surge in (NewBlockSurge, judged
// on the whole cache's rates: a moved working set), first and second misses get in when evictions
// rarely come back and the earlier surges' first misses did, and for a while after a level's
// recent returns alone may clear the bar, so a moved hot set is not refused for a window.
// What a surge admits is warm (Admission::warm): the old set's blocks were hit, and CLOCK would
// otherwise keep them a turn longer than the new set's.
// Levels come from a FrequencyTable of misses; a first miss whose block the cache recently refused
// or evicted (a GhostFilter, ARC's ghost lists) counts as a second one. Returns are measured on a
// hash-chosen sample of blocks (ReturnTracker): a level's ratio counts misses that ended (came
// back, or not within the window) and weighs those still pending by pending_weight. Owns its
// tables (about 2 bytes per slot + 8-16 KiB); not thread-safe (one per shard, under the shard
// lock).
#pragma once

#include <array>
#include <cstdint>
#include <memory>

#include "policy/admission/admission_policy.h"
#include "policy/admission/frequency_table.h"
#include "policy/admission/new_block_surge.h"
#include "policy/admission/recurring_misses.h"
#include "policy/admission/return_ratio.h"
#include "policy/admission/return_tracker.h"
#include "policy/common/ghost_filter.h"

namespace tiercache {

class AdaptiveAdmission final : public AdmissionPolicy {
 public:
  struct Params {
    // A miss returns "soon" when its block is accessed again within window * capacity accesses
    // (an admitted block lives at least that long under LRU). Default 1.
    double window = 1.0;
    // Lowest share of returning misses that earns a level its slots. Default 0.1.
    double min_return = 0.1;
    // A level is admitted when its return ratio beats the eviction return ratio by this much
    // (absolute); a tie keeps what is cached, which saves writes and keeps a hot set larger than
    // the cache from churning. Default 0.05.
    double margin = 0.05;
    // A miss still within its window counts as this many non-returns in its level's ratio
    // (ended misses count 1): 1 reacts at once to a scan but reads a moved hot set, whose misses
    // have not come back yet, as one-time reads; 0 waits a window for the evidence. Default 0.25.
    double pending_weight = 0.25;
    // Assumed share of evicted blocks that come back, before evictions were measured. Default 0.25.
    double eviction_prior = 0.25;
    // One refused miss in this many is admitted anyway, so evictions keep being measured; 0 = none.
    // Each probe evicts a block, often one a boot's core or a loop's kept part needs. Default 256
    // (64 until 2026-12-05).
    uint32_t probe_interval = 256;
    // Return statistics of misses are halved every miss_halving * capacity accesses, those of
    // evictions every eviction_halving * capacity accesses. Defaults 2 and 1 (0.5 until
    // 2026-12-07: while misses are refused E rests on the few evictions probes cause, and half
    // a capacity's worth swung it enough to admit bursts of misses that came back no more often
    // than what they evicted).
    double miss_halving = 2.0;
    double eviction_halving = 1.0;
    // Miss counts are halved every frequency_halving * capacity misses. Default 10.
    double frequency_halving = 10.0;
    // Keys the FrequencyTable tracks, per slot (2 bytes each). Default 0.25.
    double frequency_keys = 0.25;
    // Blocks the ghost remembers, refused misses and evictions, per slot (1 byte each; it forgets
    // in FIFO order after between half and all of them). A first miss it remembers counts as a
    // second: the frequency table alone forgets a hot set larger than the cache before its
    // blocks miss again. 0 = no ghost. Default 1.5.
    double ghost = 1.5;
    // 1 in 2^sample_shift blocks is followed; -1 = about 256 per capacity. Default -1.
    int sample_shift = -1;
    // Which blocks are followed: another seed draws another sample of the same size, so the
    // referee can tell the policy's figures from the sample's luck. Default 0.
    uint32_t sample_seed = 0;
    // First-level misses of blocks accessed within the last few capacities get a second look
    // (RecurringMisses: a learned share of them is admitted). Default on.
    bool recurring = true;
    RecurringMisses::Params recurring_params;
    // What a surge of new blocks is (NewBlockSurge); surge.ratio 0 = no surge handling.
    NewBlockSurge::Params surge;
    // The highest frequency level a surge admits (0: first misses only). A surge is seen a few
    // hundred accesses late, and the moved set's blocks refused before it miss again as second
    // misses (the ghost recalls them), judged by a level the old set's noise fills. Default 1.
    int surge_max_level = 1;
    // During a surge a first miss is admitted while evictions come back less often than this
    // (the blocks leaving are the old working set's), or while that share is young (young_bar
    // below). Default 0.3.
    double surge_eviction_return = 0.3;
    // ... and while the first misses surges admitted lately came back at least as often as the
    // bar asks of a level (a moved hot set's do; a loop's forgotten blocks, which come in bursts
    // too, come back a loop later): their returns are halved every surge_memory capacities, so
    // one loop's lesson outlasts the gaps between its bursts. Default 16.
    double surge_memory = 16;
    // Misses admitted during a surge, for whatever reason, are warm. Default on.
    bool surge_warm = true;
    // For surge_hold capacities of accesses after a surge, a level is also admitted when its
    // recent ratio clears the bar: returns and ended misses only (pending ones do not count),
    // halved every recent_halving capacities, a prior of 0. Defaults 1 and 0.25.
    double surge_hold = 1.0;
    double recent_halving = 0.25;
    // While the share of evictions that come back is young, the bar is at most young_bar, so a
    // level whose misses come back that often is admitted. That share counts a return at once
    // and a non-return a window later, so while most sampled evictions are still within their
    // window (more than young_ratio times as many as have ended: a shard that just began to
    // evict, or whose evictions just surged) it reads high; nor does it then stop a surge's first
    // misses (surge_eviction_return). young_bar 0 = neither. Defaults 0.35, 2.
    double young_bar = 0.35;
    double young_ratio = 2.0;
    bool operator==(const Params&) const = default;
  };

  // Frequency levels (misses counted by the FrequencyTable): 0-1, 2, 3-4, 5-8, 9+.
  static constexpr int kLevels = 5;
  // Tracker level code of a miss that filled a free slot (counted when it happened).
  static constexpr uint8_t kFilled = 8;
  // Tracker level code of a level-0 miss a surge admitted (a level-0 miss for levels_ too).
  static constexpr uint8_t kSurgeAdmitted = kLevels;
  static int Level(uint32_t misses);
  static uint32_t AutoSampleShift(uint32_t capacity);

  // `surge`: the cache's SurgeBoard and this shard's slot there (none: the shard judges alone).
  AdaptiveAdmission(uint32_t capacity, const Params& params, SurgeSlot surge = {});
  explicit AdaptiveAdmission(uint32_t capacity) : AdaptiveAdmission(capacity, Params{}) {}

  const char* name() const override { return "adaptive"; }
  void on_hit(uint64_t block, bool is_write) override;
  Admission admit(const AdmissionQuery& query) override;
  void on_evict(uint64_t block) override;
  uint64_t memory_size() const override;
  // admitted, refused, probes, ghost_hits and wasted_admissions (estimated from the sample),
  // recalled (first misses the ghost remembered), threshold (lowest miss count admitted when
  // full; 16 = none), recurring_admitted (misses admitted by RecurringMisses alone),
  // recurring_hits and recurring_wasted (its admissions hit, and evicted unhit; estimated),
  // surges (starts of one), surge_admitted (misses of levels up to surge_max_level admitted
  // during a surge), surge_held (such misses a surge would have admitted but for its earlier
  // admissions' returns), recent_admitted (misses admitted after one on recent returns),
  // warm_admitted (misses admitted warm) and young_admitted (misses whose level cleared the bar
  // only under young_bar's ceiling).
  void visit_counters(const CounterVisitor& visit) const override;

  // The bar a level's return ratio must clear (with young_bar's ceiling), and a level's return
  // ratio.
  double bar() const;
  double return_ratio(int level) const;

 private:
  // Counts the access and resolves a pending return of `block`. Returns whether RecurringMisses
  // remembers the block (false when it is off).
  bool observe(uint64_t block, bool hit);
  bool level_admitted(int level) const;
  // The bar without young_bar's ceiling, and whether the ceiling applies now.
  double settled_bar() const;
  bool evictions_young() const;
  void update_threshold();
  // Follows NewBlockSurge at each miss of a full shard; true while new blocks surge in.
  bool track_surge();
  // Whether a full shard admits a miss of `level`, refused on its level's ratio, for a surge's
  // sake (`surging`: one is going on): during one (levels up to surge_max_level), or on recent
  // returns after one.
  enum class SurgeAdmission { kNo, kDuringSurge, kRecent };
  SurgeAdmission surge_admits(int level, bool surging);

  Params params_;
  FrequencyTable misses_;
  GhostFilter left_;  // blocks recently refused or evicted
  ReturnTracker returns_;
  uint64_t now_ = 0;  // accesses seen
  // True every `period`-th call (a countdown: a division on every access costs more than the
  // rest of the check).
  struct Every {
    uint64_t period, left;
    explicit Every(uint64_t accesses) : period(accesses), left(accesses) {}
    bool tick() {
      if (--left != 0) return false;
      left = period;
      return true;
    }
  };
  Every miss_halving_, eviction_halving_, recent_halving_;  // halvings of the ratios
  uint32_t sweep_steps_;  // tracker entries examined per access, to expire each within a window
  std::unique_ptr<RecurringMisses> recurring_;  // null when Params::recurring is off
  std::array<ReturnRatio, kLevels> levels_{};  // misses, counted when they happen
  std::array<ReturnRatio, kLevels> recent_{};  // misses, counted when they end
  ReturnRatio surge_returns_;  // the first misses surges admitted (also in levels_[0])
  Every surge_memory_halving_;  // halvings of surge_returns_
  NewBlockSurge surge_;
  uint64_t surge_until_ = 0;  // recent_ may admit until this access
  uint64_t surge_hold_;       // accesses
  // Evictions, counted when resolved (returned or expired), so young ones do not look idle;
  // pending counts the sampled ones within their window.
  ReturnRatio evictions_;
  uint64_t admitted_ = 0, refused_ = 0, probes_ = 0, ghost_hits_ = 0, wasted_ = 0;
  uint64_t refused_since_probe_ = 0, recurring_admitted_ = 0, recalled_ = 0;
  uint64_t surges_ = 0, surge_admitted_ = 0, recent_admitted_ = 0, warm_admitted_ = 0;
  uint64_t young_admitted_ = 0, surge_held_ = 0;
  uint32_t threshold_ = 1;
};

}  // namespace tiercache
