#include "policy/sequential/stream_history.h"

#include <algorithm>
#include <cassert>

namespace tiercache {

StreamHistory::StreamHistory(uint32_t extents, uint64_t horizon)
    : horizon_(horizon), start_(extents, 0), end_(extents, 0), stamp_(extents, 0) {}

bool StreamHistory::live(size_t i, uint64_t now) const {
  return start_[i] != end_[i] && (horizon_ == 0 || now - stamp_[i] <= horizon_);
}

bool StreamHistory::overlaps(uint64_t offset, uint64_t length, uint64_t now,
                             uint64_t* span) const {
  const uint64_t last = offset + length;
  for (size_t i = 0; i < start_.size(); ++i) {
    if (live(i, now) && offset < end_[i] && start_[i] < last) {
      if (span != nullptr) *span = end_[i] - start_[i];
      return true;
    }
  }
  return false;
}

void StreamHistory::add(uint64_t offset, uint64_t length, uint64_t now) {
  assert(!start_.empty() && length > 0);
  const uint64_t last = offset + length;
  size_t victim = 0;  // a free or forgotten entry, else the one extended longest ago
  bool victim_free = false;
  for (size_t i = 0; i < start_.size(); ++i) {
    if (!live(i, now)) {
      if (!victim_free) {
        victim = i;
        victim_free = true;
      }
      continue;
    }
    // Continues the extent (starts at its end) or overlaps it: one stream, one extent.
    if (offset <= end_[i] && start_[i] <= last) {
      start_[i] = std::min(start_[i], offset);
      end_[i] = std::max(end_[i], last);
      stamp_[i] = now;
      return;
    }
    if (!victim_free && stamp_[i] < stamp_[victim]) victim = i;
  }
  start_[victim] = offset;
  end_[victim] = last;
  stamp_[victim] = now;
}

uint64_t StreamHistory::memory_size() const {
  return (start_.capacity() + end_.capacity() + stamp_.capacity()) * sizeof(uint64_t);
}

}  // namespace tiercache
