#include "policy/sequential/stream_history.h"

#include <algorithm>
#include <cassert>

namespace tiercache {

StreamHistory::StreamHistory(uint32_t extents, uint64_t horizon)
    : horizon_(horizon), start_(extents, 0), end_(extents, 0), stamp_(extents, 0) {}

bool StreamHistory::live(size_t i, uint64_t now) const {
  return start_[i] != end_[i] && (horizon_ == 0 || now - stamp_[i] <= horizon_);
}

StreamHistory::Overlap StreamHistory::add(uint64_t offset, uint64_t length, uint64_t now) {
  assert(!start_.empty() && length > 0);
  const uint64_t last = offset + length;
  Overlap overlapped;
  size_t grow = start_.size();  // the extent the read continues or overlaps, if any
  size_t victim = 0;            // a free or forgotten entry, else the one read longest ago
  bool victim_free = false;
  for (size_t i = 0; i < start_.size(); ++i) {
    if (!live(i, now)) {
      if (!victim_free) {
        victim = i;
        victim_free = true;
      }
      continue;
    }
    if (overlapped.span == 0 && offset < end_[i] && start_[i] < last) {
      overlapped = {end_[i] - start_[i], offset > start_[i] ? offset - start_[i] : 0};
    }
    // Continues the extent (starts at its end) or overlaps it: one stream, one extent.
    if (grow == start_.size() && offset <= end_[i] && start_[i] <= last) grow = i;
    if (!victim_free && stamp_[i] < stamp_[victim]) victim = i;
  }
  if (grow != start_.size()) {
    start_[grow] = std::min(start_[grow], offset);
    end_[grow] = std::max(end_[grow], last);
    stamp_[grow] = now;
  } else {
    start_[victim] = offset;
    end_[victim] = last;
    stamp_[victim] = now;
  }
  return overlapped;
}

uint64_t StreamHistory::memory_size() const {
  return (start_.capacity() + end_.capacity() + stamp_.capacity()) * sizeof(uint64_t);
}

}  // namespace tiercache
