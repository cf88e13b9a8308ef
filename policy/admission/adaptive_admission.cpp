#include "policy/admission/adaptive_admission.h"

#include <algorithm>
#include <bit>

#include "policy/admission/capacity_scaled.h"

namespace tiercache {
namespace {

constexpr uint32_t kLevelFloor[AdaptiveAdmission::kLevels] = {0, 2, 3, 5, 9};
constexpr uint32_t kNoLevel = 16;     // threshold when no level is admitted
constexpr double kLevelPrior = 0.5;   // a level without samples is given the benefit of the doubt
constexpr uint32_t kSamplesLog2 = 8;  // AutoSampleShift follows ~256 blocks per capacity

}  // namespace

int AdaptiveAdmission::Level(uint32_t misses) {
  int level = 0;
  while (level + 1 < kLevels && misses >= kLevelFloor[level + 1]) ++level;
  return level;
}

uint32_t AdaptiveAdmission::AutoSampleShift(uint32_t capacity) {
  const uint32_t log2 = std::bit_width(std::max(capacity, 1u)) - 1;
  return log2 > kSamplesLog2 ? log2 - kSamplesLog2 : 0;
}

AdaptiveAdmission::AdaptiveAdmission(uint32_t capacity, const Params& params, SurgeSlot surge)
    : params_(params),
      misses_(static_cast<uint32_t>(CapacityScaled(params_.frequency_keys, capacity)),
              CapacityScaled(params_.frequency_halving, capacity)),
      left_(params_.ghost > 0 ? CapacityScaled(params_.ghost, capacity) : 0),
      returns_(capacity, static_cast<uint32_t>(CapacityScaled(params_.window, capacity)),
               params_.sample_shift >= 0 ? params_.sample_shift : AutoSampleShift(capacity),
               params_.sample_seed),
      miss_halving_(CapacityScaled(params_.miss_halving, capacity)),
      eviction_halving_(CapacityScaled(params_.eviction_halving, capacity)),
      recent_halving_(CapacityScaled(params_.recent_halving, capacity)),
      surge_memory_halving_(CapacityScaled(params_.surge_memory, capacity)),
      surge_(capacity, params_.surge, surge),
      surge_hold_(static_cast<uint64_t>(params_.surge_hold * capacity)) {
  const uint64_t window = CapacityScaled(params_.window, capacity);
  sweep_steps_ = static_cast<uint32_t>((returns_.entries() + window - 1) / window);
  if (params_.recurring) {
    recurring_ = std::make_unique<RecurringMisses>(capacity, returns_.sample_shift(),
                                                   params_.sample_seed,
                                                   params_.recurring_params);
  }
}

double AdaptiveAdmission::settled_bar() const {
  return std::max(params_.min_return,
                  evictions_.value(params_.eviction_prior, 0) + params_.margin);
}

bool AdaptiveAdmission::evictions_young() const {
  return params_.young_bar > 0 && evictions_.pending > params_.young_ratio * evictions_.events;
}

double AdaptiveAdmission::bar() const {
  const double settled = settled_bar();
  return evictions_young() ? std::min(settled, params_.young_bar) : settled;
}

double AdaptiveAdmission::return_ratio(int level) const {
  return levels_[level].value(kLevelPrior, params_.pending_weight);
}

bool AdaptiveAdmission::level_admitted(int level) const { return return_ratio(level) >= bar(); }

void AdaptiveAdmission::update_threshold() {
  threshold_ = kNoLevel;
  for (int level = 0; level < kLevels; ++level) {
    if (level_admitted(level)) {
      threshold_ = std::max(kLevelFloor[level], 1u);
      return;
    }
  }
}

bool AdaptiveAdmission::observe(uint64_t block, bool hit) {
  ++now_;
  if (miss_halving_.tick()) {
    for (ReturnRatio& r : levels_) r.halve();
  }
  if (eviction_halving_.tick()) evictions_.halve();
  if (surge_memory_halving_.tick()) surge_returns_.halve();
  if (recent_halving_.tick()) {
    for (ReturnRatio& r : recent_) r.halve();
  }
  surge_.on_access();
  const ReturnTracker::Expired expired = returns_.expire(now_, sweep_steps_);
  evictions_.resolve(expired.evictions, 0);
  if (expired.misses != 0) {  // most accesses end no sampled miss
    const uint32_t surged = expired.miss_levels[kSurgeAdmitted];
    surge_returns_.resolve(surged, 0);
    for (int level = 0; level < kLevels; ++level) {
      const uint32_t decided = expired.miss_levels[level] + (level == 0 ? surged : 0);
      levels_[level].resolve(decided, 0);  // filled misses: already counted
      recent_[level].resolve(decided + expired.miss_levels[level | kFilled], 0);
    }
  }
  const bool recurs = recurring_ && recurring_->observe(block, now_, hit);
  const auto ret = returns_.on_access(block, now_, hit);
  if (!ret) return recurs;
  if (ret->kind == ReturnTracker::Kind::kEviction) {
    evictions_.resolve(1, 1);
    return recurs;
  }
  if (ret->level == kSurgeAdmitted) surge_returns_.resolve(1, 1);
  const int level = ret->level == kSurgeAdmitted ? 0 : ret->level & ~kFilled;
  ReturnRatio& ratio = levels_[level];
  recent_[level].resolve(1, 1);  // never pending: counted when it ends
  if (ret->level & kFilled) {
    ratio.returns = std::min(ratio.returns + 1, ratio.events);  // its miss may predate a halving
  } else {
    ratio.resolve(1, 1);
  }
  if (!hit) ++ghost_hits_;  // a refused block came back
  return recurs;
}

void AdaptiveAdmission::on_hit(uint64_t block, bool) { observe(block, true); }

bool AdaptiveAdmission::track_surge() {
  const bool was = surge_.surging();
  const bool surging = surge_.judge();
  if (surging && !was) ++surges_;
  if (surging) surge_until_ = now_ + surge_hold_;
  return surging;
}

AdaptiveAdmission::SurgeAdmission AdaptiveAdmission::surge_admits(int level, bool surging) {
  // A young E reads high (young_bar): it does not stop a surge.
  if (surging && level <= params_.surge_max_level &&
      (evictions_young() ||
       evictions_.value(params_.eviction_prior, 0) < params_.surge_eviction_return)) {
    // Only what comes back counts, pending admissions not at all: a surge is over before its
    // first admissions' window has passed, and the next surge is judged on them.
    if (surge_returns_.value(kLevelPrior, 0) >= bar()) {
      ++surge_admitted_;
      return SurgeAdmission::kDuringSurge;
    }
    ++surge_held_;
  }
  if (now_ < surge_until_ && recent_[level].value(0, 0) >= bar()) {
    ++recent_admitted_;
    return SurgeAdmission::kRecent;
  }
  return SurgeAdmission::kNo;
}

Admission AdaptiveAdmission::admit(const AdmissionQuery& query) {
  const bool seen = observe(query.block, false);
  int level = Level(misses_.increment(query.block));
  if (level == 0 && left_.contains(query.block)) {
    level = 1;
    ++recalled_;
  }
  if (level == 0) surge_.on_new_block(query.block);
  const bool full = query.used >= query.capacity;
  bool admitted = !full;
  SurgeAdmission by_surge = SurgeAdmission::kNo;
  if (full) {
    update_threshold();
    const bool surging = track_surge();
    admitted = level_admitted(level);
    if (admitted && evictions_young() && return_ratio(level) < settled_bar()) ++young_admitted_;
    if (!admitted) by_surge = surge_admits(level, surging);
    admitted = admitted || by_surge != SurgeAdmission::kNo;
  }
  const bool recurs = seen && level == 0;
  if (!admitted && recurs && full && recurring_->admits(query.block)) {
    admitted = true;
    ++recurring_admitted_;
    recurring_->record_admission(query.block, now_);
  }
  if (!admitted && params_.probe_interval != 0 &&
      ++refused_since_probe_ >= params_.probe_interval) {
    refused_since_probe_ = 0;
    ++probes_;
    admitted = true;
  }
  admitted ? ++admitted_ : ++refused_;
  if (!admitted) left_.insert(query.block);
  // A surge's blocks are the working set moving in: without a hit's standing CLOCK evicts them
  // before the old set's, whose blocks were hit, and the evictions that come back raise the bar.
  const bool warm = admitted && full && surge_.surging() && params_.surge_warm;
  if (warm) ++warm_admitted_;
  // A miss that filled a free slot was no decision: it counts at once as not back (until it is),
  // so a scan that follows the fill meets the evidence of the fill's one-time reads.
  // Only a first miss counts in the surge's own returns: they judge the next surge's first misses.
  const bool surged = by_surge == SurgeAdmission::kDuringSurge && level == 0;
  const uint8_t code = surged ? kSurgeAdmitted : static_cast<uint8_t>(level | (full ? 0 : kFilled));
  if (returns_.record_miss(query.block, now_, code, admitted)) {
    full ? ++levels_[level].pending : ++levels_[level].events;
    if (surged) ++surge_returns_.pending;
  }
  return {.admitted = admitted, .warm = warm};
}

void AdaptiveAdmission::on_evict(uint64_t block) {
  left_.insert(block);
  if (recurring_) recurring_->on_evict(block);
  const ReturnTracker::EvictionRecord record = returns_.record_eviction(block, now_);
  if (record.recorded) ++evictions_.pending;
  if (record.wasted) ++wasted_;
}

uint64_t AdaptiveAdmission::memory_size() const {
  return misses_.memory_size() + left_.memory_size() + returns_.memory_size() +
         (recurring_ ? recurring_->memory_size() : 0) +
         (surge_.on_board() ? SurgeBoard::kSlotBytes : 0);
}

void AdaptiveAdmission::visit_counters(const CounterVisitor& visit) const {
  const uint32_t scale = returns_.sample_shift();
  visit("admitted", admitted_);
  visit("refused", refused_);
  visit("probes", probes_);
  visit("ghost_hits", ghost_hits_ << scale);
  visit("wasted_admissions", wasted_ << scale);
  visit("recalled", recalled_);
  visit("threshold", threshold_);
  visit("recurring_admitted", recurring_admitted_);
  visit("surges", surges_);
  visit("surge_admitted", surge_admitted_);
  visit("surge_held", surge_held_);
  visit("recent_admitted", recent_admitted_);
  visit("warm_admitted", warm_admitted_);
  visit("young_admitted", young_admitted_);
  if (recurring_) {  // the share itself is no counter: the engine sums counters over shards
    visit("recurring_hits", recurring_->sampled_hits() << scale);
    visit("recurring_wasted", recurring_->sampled_wasted() << scale);
  }
}

}  // namespace tiercache
