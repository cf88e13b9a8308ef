#include "policy/admission/recurring_misses.h"

#include <algorithm>
#include <limits>

#include "policy/admission/capacity_scaled.h"

namespace tiercache {
namespace {

constexpr double kPrior = 0.5;  // as a level without samples

}  // namespace

RecurringMisses::RecurringMisses(uint32_t capacity, uint32_t sample_shift, const Params& params,
                                 double min_return, double eviction_prior)
    : params_(params),
      min_return_(min_return),
      eviction_prior_(eviction_prior),
      capacity_(capacity),
      span_(CapacityScaled(params.span, capacity)),
      regions_(static_cast<uint32_t>(
                   std::max<uint64_t>(64, CapacityScaled(params.entries, capacity))),
               span_),
      returns_(capacity, static_cast<uint32_t>(span_), sample_shift),
      sweep_steps_(static_cast<uint32_t>((returns_.entries() + span_ - 1) / span_)) {}

double RecurringMisses::turnover() const {
  if (admissions_ == 0) return std::numeric_limits<double>::max();
  return static_cast<double>(capacity_) * static_cast<double>(accesses_) / admissions_;
}

// Misses pending for a span would outweigh every return if they counted (pending weight 0): the
// class waits for its evidence, as a new level does.
double RecurringMisses::return_ratio() const { return misses_.value(kPrior, 0); }

double RecurringMisses::eviction_ratio() const {
  return evictions_.value(eviction_prior_, 0);
}

bool RecurringMisses::admitted() const {
  return return_ratio() >= std::max(min_return_, eviction_ratio() + params_.margin);
}

bool RecurringMisses::observe(uint64_t block, uint64_t now, bool hit) {
  if (now % (2 * span_) == 0) {
    misses_.halve();
    evictions_.halve();
    accesses_ /= 2;
    admissions_ /= 2;
  }
  ++accesses_;
  const ReturnTracker::Expired expired = returns_.expire(now, sweep_steps_);
  evictions_.events += expired.evictions;
  misses_.resolve(expired.misses, 0);
  if (const auto ret = returns_.on_access(block, now, hit)) {
    // A block back later than the cache would have kept it is no hit it would have earned,
    // admitted or kept: with the whole returning set admitted the turnover shrinks until it
    // does not fit, and the class stops (a loop larger than the cache).
    const bool soon = ret->distance <= params_.turnover_share * turnover();
    if (ret->kind == ReturnTracker::Kind::kEviction) {
      ++evictions_.events;
      evictions_.returns += soon;
    } else {
      misses_.resolve(1, soon);
    }
  }
  return regions_.touch(block, now);
}

void RecurringMisses::record_miss(uint64_t block, uint64_t now, bool admitted) {
  if (returns_.record_miss(block, now, 0, admitted)) ++misses_.pending;
}

void RecurringMisses::on_evict(uint64_t block, uint64_t now) {
  returns_.record_eviction(block, now);
}

uint64_t RecurringMisses::memory_size() const {
  return regions_.memory_size() + returns_.memory_size();
}

}  // namespace tiercache
