#include "policy/admission/new_block_surge.h"

#include <algorithm>

namespace tiercache {

NewBlockSurge::NewBlockSurge(uint32_t capacity, const Params& params) : params_(params) {
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
}

bool NewBlockSurge::surging() const {
  const double fast = fast_.rate();
  return params_.ratio > 0 && fast >= params_.floor && fast >= params_.ratio * slow_.rate();
}

}  // namespace tiercache
