// DirtyEpochs: how old the oldest dirty line is, at 2 bits per line. Time is cut into epochs of
// max_dirty_age / 2; a line turning dirty is tagged with the current epoch (0..3) and shards count
// dirty lines per tag. The oldest dirty age is then known to within one epoch, and the cleaner can
// pick the lines of the oldest epoch first. An epoch tag is reused only once its count is 0: if
// lines stay dirty 3 epochs, the current epoch keeps growing (ages are then over-, never
// under-estimated). current() is thread-safe; the rest runs on the cleaner's loop.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

#include "cachelib/common/clock.h"

namespace tiercache {

class DirtyEpochs {
 public:
  DirtyEpochs(Nanos epoch_length, Nanos now);

  // The tag for a line turning dirty now. Thread-safe.
  uint32_t current() const { return current_.load(std::memory_order_relaxed); }
  // The tag for lines found dirty when the cache opens. When they turned dirty was not recorded
  // (it is at least the restart ago), so they count as max_dirty_age old (two epochs): the bound
  // makes the cleaner write them back first. Call once, before any line turns dirty.
  uint32_t recovered(Nanos now);
  // Starts the next epoch when the current one is over and the next tag is free
  // (`dirty` = dirty lines per tag, summed over shards).
  void advance(Nanos now, const std::array<uint64_t, 4>& dirty);
  // Age of the oldest dirty line (an upper bound within one epoch); 0 when none is dirty.
  Nanos oldest_age(Nanos now, const std::array<uint64_t, 4>& dirty) const;
  // The tag holding the oldest dirty lines; -1 when none is dirty.
  int oldest_epoch(const std::array<uint64_t, 4>& dirty) const;
  // Epochs of `length` from the next advance() on (a live change of max_dirty_age). Ages stay
  // upper bounds: the epochs' start times are kept.
  void set_length(Nanos length) { length_ = length; }

 private:
  Nanos length_;
  std::atomic<uint32_t> current_{0};
  std::array<Nanos, 4> start_{};  // when each tag's epoch began (cleaner's loop only)
};

}  // namespace tiercache
