// NewBlockSurge: tells AdaptiveAdmission when blocks it has never seen miss much more often than
// they lately have, as when a workload moves to a new working set. It compares two exponentially
// weighted rates of such misses per access, a fast and a slow one (both bias-corrected, so a
// young shard reads its rate, not zero), and keeps a CUSUM of the evidence that the rate has
// jumped from the slow one, which sees a jump within a few dozen accesses where the fast rate
// takes a few hundred; evidence from streams whose new blocks come in clusters (loops, files)
// is discounted by how much more they vary than independent accesses. A new block right after
// the previous one counts once with it: a run is one stream, which sequential bypass judges,
// not a set of scattered blocks.
// With a SurgeBoard the shard publishes its rates and evidence and judges the whole cache's.
// A few doubles; not thread-safe (one per shard, under the shard lock).
#pragma once

#include <cstdint>

#include "policy/admission/surge_board.h"

namespace tiercache {

class NewBlockSurge {
 public:
  struct Params {
    // Time constants of the two rates, in capacities of accesses. With a board each shard sees
    // 1/n of the accesses, so the mean of n shards' rates follows these many capacities of the
    // whole cache's accesses. Defaults 1/32 and 1 (0.125 and 4 until 2026-12-06, judged alone).
    double fast = 1.0 / 32;
    double slow = 1.0;
    // A surge begins when the fast rate is at least `ratio` times the slow one and at least
    // `floor` new blocks per access, and lasts while it stays at least `end_ratio` times the slow
    // one (the slow rate rises with the surge, and the new set's later first misses still
    // count). ratio 0 = never. Defaults 2, 0.2 and 1.5.
    double ratio = 2.0;
    double floor = 0.2;
    double end_ratio = 1.5;
    // A surge also begins when the fast rate is at least `floor` and the evidence reaches
    // `evidence`, and lasts while it stays at least half that. The evidence is a CUSUM of log
    // likelihood ratios, never below 0: for each access, how much likelier its outcome (a new
    // block or not) is at the rate a surge needs (max(ratio x slow, floor)) than at the slow
    // rate, divided by the stream's dispersion (below); when a surge ends it starts again from
    // 0. 0 = the rates alone. Default 12: at the slow rate, independent accesses start a false
    // surge about once in e^12.
    double evidence = 12;
    bool operator==(const Params&) const = default;
  };

  NewBlockSurge(uint32_t capacity, const Params& params, SurgeSlot slot = {});

  // Every access (hit or miss), before a miss of it is reported.
  void on_access() {
    fast_.decay();
    slow_.decay();
    if (on_board()) slot_.board->publish(slot_.index, own_rates());
    if (++unscored_accesses_ >= kScoreBatch) score(rates().slow);
    if (++dispersion_.accesses == kScoreBatch) dispersion_.end();
  }
  // The access was a miss of a block never seen (or long forgotten).
  void on_new_block(uint64_t block);
  // Whether new blocks surge in now, on the board's mean rates if there is one; remembers the
  // answer (on the board if there is one), on which the end of a surge depends. Call at each
  // miss that may need it.
  bool judge();
  // The last answer, this shard's or any shard's on the board.
  bool surging() const { return on_board() ? slot_.board->surging() : surging_; }
  // The rates judge() reads: the board's mean, or this shard's own.
  SurgeBoard::Rates rates() const;
  // Whether the shard publishes on a board (its slot counts in the policy's memory).
  bool on_board() const { return slot_.board != nullptr; }
  double fast_rate() const { return fast_.rate(); }
  double slow_rate() const { return slow_.rate(); }
  // The evidence of a surge now, the board's if there is one (accesses not yet scored aside).
  double evidence() const { return on_board() ? slot_.board->evidence() : own_evidence_; }

 private:
  // events / weight: the weighted share of accesses that brought a new block, with `weight` the
  // total weight of the accesses seen (1 - keep^n), which corrects the young average's bias.
  struct Rate {
    double keep = 0, events = 0, weight = 0;
    void decay() {
      events *= keep;
      weight = weight * keep + (1 - keep);
      if (events < 1e-30) events = 0;  // no denormals on the hit path
    }
    void add() { events += 1 - keep; }
    double rate() const { return weight > 0 ? events / weight : 0; }
  };
  SurgeBoard::Rates own_rates() const { return {.fast = fast_.rate(), .slow = slow_.rate()}; }
  // Adds the accesses and new blocks seen since the last call to the evidence (in batches, so
  // that shards sharing a board do not touch its line on every access), against `slow`, the
  // slow rate rates() reads now.
  void score(double slow);
  static constexpr uint32_t kScoreBatch = 16;
  // How much more the count of new blocks per kScoreBatch accesses varies than it would if
  // each access were independent (variance / binomial variance, at least 1), over the slow
  // rate's horizon. A loop or a file brings its new blocks in clusters, whose evidence is
  // worth less than scattered ones': the CUSUM divides by this (quasi-likelihood).
  struct Dispersion {
    double keep = 0, sum = 0, squares = 0, weight = 0;  // exponentially weighted moments
    uint32_t accesses = 0, fresh = 0;                   // the window being counted
    void end();
    double value() const;
  };

  Params params_;
  SurgeSlot slot_;
  Rate fast_, slow_;
  uint64_t last_block_ = 0;
  bool any_block_ = false;  // last_block_ is set
  bool surging_ = false;    // judge()'s last answer, without a board
  uint32_t unscored_accesses_ = 0, unscored_new_ = 0;  // since the last score
  Dispersion dispersion_;
  double own_evidence_ = 0;                            // without a board
};

}  // namespace tiercache
