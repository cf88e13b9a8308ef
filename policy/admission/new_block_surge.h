// NewBlockSurge: tells AdaptiveAdmission when blocks it has never seen miss much more often than
// they lately have, as when a workload moves to a new working set. It compares two exponentially
// weighted rates of such misses per access, a fast and a slow one (both bias-corrected, so a
// young shard reads its rate, not zero). A new block right after the previous one counts once
// with it: a run is one stream, which sequential bypass judges, not a set of scattered blocks.
// A few doubles; not thread-safe (one per shard, under the shard lock).
#pragma once

#include <cstdint>

namespace tiercache {

class NewBlockSurge {
 public:
  struct Params {
    // Time constants of the two rates, in capacities of accesses. Defaults 0.125 and 4.
    double fast = 0.125;
    double slow = 4.0;
    // A surge: the fast rate is at least `ratio` times the slow one and at least `floor` new
    // blocks per access. ratio 0 = never. Defaults 2 and 0.2.
    double ratio = 2.0;
    double floor = 0.2;
  };

  NewBlockSurge(uint32_t capacity, const Params& params);

  // Every access (hit or miss), before a miss of it is reported.
  void on_access() {
    fast_.decay();
    slow_.decay();
  }
  // The access was a miss of a block never seen (or long forgotten).
  void on_new_block(uint64_t block);
  bool surging() const;
  double fast_rate() const { return fast_.rate(); }
  double slow_rate() const { return slow_.rate(); }

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

  Params params_;
  Rate fast_, slow_;
  uint64_t last_block_ = 0;
  bool any_block_ = false;  // last_block_ is set
};

}  // namespace tiercache
