#include "cachelib/engine/dirty_epochs.h"

namespace tiercache {

DirtyEpochs::DirtyEpochs(Nanos epoch_length, Nanos now) : length_(epoch_length) {
  start_.fill(now);
}

uint32_t DirtyEpochs::recovered(Nanos now) {
  const uint32_t tag = (current() + 1) & 3;  // the oldest in age order
  start_[tag] = now - 2 * length_;
  return tag;
}

void DirtyEpochs::advance(Nanos now, const std::array<uint64_t, 4>& dirty) {
  uint32_t cur = current();
  if (now - start_[cur] < length_) return;
  uint32_t next = (cur + 1) & 3;
  if (dirty[next] != 0) return;  // still holds old lines: keep filling the current epoch
  start_[next] = now;
  current_.store(next, std::memory_order_relaxed);
}

int DirtyEpochs::oldest_epoch(const std::array<uint64_t, 4>& dirty) const {
  // Tags run in age order from the one after the current, wrapping.
  const uint32_t cur = current();
  for (uint32_t k = 1; k <= 4; ++k) {
    uint32_t tag = (cur + k) & 3;
    if (dirty[tag] != 0) return int(tag);
  }
  return -1;
}

Nanos DirtyEpochs::oldest_age(Nanos now, const std::array<uint64_t, 4>& dirty) const {
  int tag = oldest_epoch(dirty);
  return tag < 0 ? Nanos(0) : now - start_[tag];
}

}  // namespace tiercache
