#include "policy/admission/new_block_surge.h"

#include <algorithm>
#include <cmath>

namespace tiercache {

NewBlockSurge::NewBlockSurge(uint32_t capacity, const Params& params, SurgeSlot slot)
    : params_(params), slot_(slot) {
  fast_.keep = 1 - 1 / std::max(1.0, params_.fast * capacity);
  slow_.keep = 1 - 1 / std::max(1.0, params_.slow * capacity);
  dispersion_.keep = 1 - kScoreBatch / std::max(double{kScoreBatch}, params_.slow * capacity);
}

void NewBlockSurge::Dispersion::end() {
  const double count = fresh;
  sum = sum * keep + (1 - keep) * count;
  squares = squares * keep + (1 - keep) * count * count;
  weight = weight * keep + (1 - keep);
  accesses = fresh = 0;
}

double NewBlockSurge::Dispersion::value() const {
  if (weight < 0.5) return 1;  // too few windows to tell: as independent accesses
  const double mean = sum / weight;
  const double variance = squares / weight - mean * mean;
  const double share = mean / kScoreBatch;
  const double binomial = kScoreBatch * share * (1 - share);
  return binomial > 0 ? std::max(1.0, variance / binomial) : 1;
}

void NewBlockSurge::on_new_block(uint64_t block) {
  const bool run = any_block_ && block == last_block_ + 1;
  last_block_ = block;
  any_block_ = true;
  if (run) return;
  ++unscored_new_;
  ++dispersion_.fresh;
  fast_.add();
  slow_.add();
  if (on_board()) slot_.board->publish(slot_.index, own_rates());
}

SurgeBoard::Rates NewBlockSurge::rates() const {
  return on_board() ? slot_.board->mean() : own_rates();
}

void NewBlockSurge::score(double slow) {
  const uint32_t accesses = unscored_accesses_;
  const uint32_t fresh = std::min(unscored_new_, accesses);
  unscored_accesses_ = unscored_new_ = 0;
  if (params_.evidence <= 0 || params_.ratio <= 0 || accesses == 0) return;
  const double usual = std::max(slow, 1e-3);  // a new block is never impossible
  const double surge = std::max(params_.ratio * usual, params_.floor);
  if (surge >= 1 || surge <= usual) return;  // no rate a surge needs is possible or higher
  const double likelihood = fresh * std::log(surge / usual) +
                            (accesses - fresh) * std::log((1 - surge) / (1 - usual));
  const double delta = likelihood / dispersion_.value();
  if (on_board()) {
    slot_.board->add_evidence(delta);
  } else {
    own_evidence_ = std::max(0.0, own_evidence_ + delta);
  }
}

bool NewBlockSurge::judge() {
  const SurgeBoard::Rates now = rates();
  score(now.slow);
  const bool was = surging();
  const double ratio = was ? std::min(params_.ratio, params_.end_ratio) : params_.ratio;
  const double needed = was ? params_.evidence / 2 : params_.evidence;
  const bool surging = params_.ratio > 0 && now.fast >= params_.floor &&
                       (now.fast >= ratio * now.slow ||
                        (params_.evidence > 0 && evidence() >= needed));
  // A surge that ends takes its evidence with it: the next one needs the whole threshold anew,
  // not the half left now (a rate near the threshold would start one surge after another).
  if (was && !surging) {
    if (on_board()) {
      slot_.board->clear_evidence();
    } else {
      own_evidence_ = 0;
    }
  }
  if (on_board()) {
    slot_.board->set_surging(surging);
  } else {
    surging_ = surging;
  }
  return surging;
}

}  // namespace tiercache
