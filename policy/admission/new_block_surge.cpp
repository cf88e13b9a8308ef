#include "policy/admission/new_block_surge.h"

#include <algorithm>

namespace tiercache {

NewBlockSurge::NewBlockSurge(uint32_t capacity, const Params& params, SurgeSlot slot)
    : params_(params), slot_(slot) {
  fast_.keep = 1 - 1 / std::max(1.0, params_.fast * capacity);
  slow_.keep = 1 - 1 / std::max(1.0, params_.slow * capacity);
}

void NewBlockSurge::on_new_block(uint64_t block) {
  const bool run = any_block_ && block == last_block_ + 1;
  last_block_ = block;
  any_block_ = true;
  if (run) return;
  fast_.add();
  slow_.add();
  if (on_board()) slot_.board->publish(slot_.index, own_rates());
}

SurgeBoard::Rates NewBlockSurge::rates() const {
  return on_board() ? slot_.board->mean() : own_rates();
}

bool NewBlockSurge::judge() {
  const SurgeBoard::Rates now = rates();
  const double ratio = surging() ? std::min(params_.ratio, params_.end_ratio) : params_.ratio;
  const bool surging =
      params_.ratio > 0 && now.fast >= params_.floor && now.fast >= ratio * now.slow;
  if (on_board()) {
    slot_.board->set_surging(surging);
  } else {
    surging_ = surging;
  }
  return surging;
}

}  // namespace tiercache
