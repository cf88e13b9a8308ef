// ReturnRatio: how many of a kind of sampled events (misses of a level, evictions) came back soon,
// for AdaptiveAdmission's decisions. Ended events count fully; events still pending count as
// `pending_weight` non-returns each; a prior worth a few samples stands in for missing evidence.
#pragma once

#include <algorithm>
#include <cstdint>

namespace tiercache {

struct ReturnRatio {
  static constexpr double kPriorWeight = 4;  // samples the prior is worth

  uint32_t events = 0, returns = 0;  // ended events, and those among them that came back
  uint32_t pending = 0;              // recorded, not ended yet (never halved)

  double value(double prior, double pending_weight) const {
    return (returns + prior * kPriorWeight) / (events + pending_weight * pending + kPriorWeight);
  }
  void resolve(uint32_t ended, uint32_t returned) {
    events += ended;
    returns += returned;
    pending -= std::min(pending, ended);  // every ended event was recorded pending; never wraps
  }
  void halve() {
    events /= 2;
    returns = std::min(returns / 2, events);
  }
};

}  // namespace tiercache
