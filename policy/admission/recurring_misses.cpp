#include "policy/admission/recurring_misses.h"

#include <xxhash.h>

#include <algorithm>

#include "policy/admission/capacity_scaled.h"

namespace tiercache {
namespace {

// Independent of the tracker's sample hash, so the sample spreads over the whole share.
constexpr uint64_t kShareSeed = 0x3c6ef372fe94f82bULL;

}  // namespace

RecurringMisses::RecurringMisses(uint32_t capacity, uint32_t sample_shift, uint32_t sample_seed,
                                 const Params& params)
    : params_(params),
      regions_(static_cast<uint32_t>(
                   std::max<uint64_t>(64, CapacityScaled(params.entries, capacity))),
               CapacityScaled(params.span, capacity)),
      admissions_(capacity, static_cast<uint32_t>(CapacityScaled(params.span, capacity)),
                  sample_shift, sample_seed),
      share_(params.initial_share) {
  const uint64_t span = CapacityScaled(params.span, capacity);
  sweep_steps_ = static_cast<uint32_t>((admissions_.entries() + span - 1) / span);
}

bool RecurringMisses::admits(uint64_t block) const {
  const uint64_t h = XXH3_64bits_withSeed(&block, sizeof(block), kShareSeed);
  return static_cast<double>(h >> 11) * 0x1.0p-53 < share_;  // 53 bits: exact in a double
}

bool RecurringMisses::observe(uint64_t block, uint64_t now, bool hit) {
  admissions_.expire(now, sweep_steps_);  // keeps stamps from wrapping into false returns
  if (const auto ret = admissions_.on_access(block, now, hit); ret && hit) {
    ++hits_;  // the first hit of an admission: only admissions are recorded
    share_ = std::min(1.0, share_ + params_.share_up);
  }
  return regions_.touch(block, now);
}

void RecurringMisses::record_admission(uint64_t block, uint64_t now) {
  admissions_.record_miss(block, now, 0, true);
}

void RecurringMisses::on_evict(uint64_t block) {
  if (admissions_.take_unhit(block)) {
    ++wasted_;
    share_ = std::max(params_.min_share, share_ - params_.share_down);
  }
}

uint64_t RecurringMisses::memory_size() const {
  return regions_.memory_size() + admissions_.memory_size();
}

}  // namespace tiercache
