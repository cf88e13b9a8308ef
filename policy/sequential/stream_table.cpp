#include "policy/sequential/stream_table.h"

#include <algorithm>
#include <cassert>

namespace tiercache {

StreamTable::StreamTable(uint32_t streams)
    : end_(streams, kUnused), start_(streams, 0), prev_(streams), next_(streams) {
  assert(streams <= kMaxStreams);
  for (uint32_t i = 0; i < streams; ++i) {
    prev_[i] = i == 0 ? kNone : Index(i - 1);
    next_[i] = i + 1 == streams ? kNone : Index(i + 1);
  }
  if (streams > 0) {
    head_ = 0;
    tail_ = Index(streams - 1);
  }
}

StreamTable::Index StreamTable::find(uint64_t offset, uint64_t length) const {
  for (size_t i = 0; i < end_.size(); ++i) {
    uint64_t end = end_[i];
    if (end == kUnused) continue;
    // Starts at the end, or rewrites the stream's tail (covers its end from inside the stream).
    if (offset == end || (offset < end && offset >= start_[i] && offset + length >= end)) {
      return Index(i);
    }
  }
  return kNone;
}

void StreamTable::move_to_front(Index i) {
  if (head_ == i) return;
  // Unlink (i is not the head, so it has a predecessor).
  next_[prev_[i]] = next_[i];
  if (next_[i] != kNone) prev_[next_[i]] = prev_[i]; else tail_ = prev_[i];
  // Relink at the head.
  prev_[i] = kNone;
  next_[i] = head_;
  prev_[head_] = i;
  head_ = i;
}

uint64_t StreamTable::add(uint64_t offset, uint64_t length) {
  assert(!end_.empty() && length <= kUnused - 1 - offset);
  uint64_t last = offset + length;
  Index i = find(offset, length);
  if (i == kNone) {
    i = tail_;  // least recently used, or a free entry while there is one
    if (end_[i] == kUnused) ++tracked_;
    start_[i] = offset;
    end_[i] = last;
    move_to_front(i);
    return 0;
  }
  uint64_t before = end_[i] - start_[i];
  start_[i] = std::min(start_[i], offset);
  end_[i] = std::max(end_[i], last);
  move_to_front(i);
  return before;
}

uint64_t StreamTable::memory_size() const {
  return (end_.capacity() + start_.capacity()) * sizeof(uint64_t) +
         (prev_.capacity() + next_.capacity()) * sizeof(Index);
}

}  // namespace tiercache
