#include "policy/admission/sampled_lru.h"

#include <algorithm>
#include <bit>

namespace tiercache {

SampledLru::SampledLru(uint32_t entries)
    : entries_(std::max(entries, 1u)),
      buckets_(std::bit_ceil(entries_.size())),
      index_(Index::bucket_traits(buckets_.data(), buckets_.size())) {}

bool SampledLru::access(uint64_t block) {
  if (const auto found = index_.find(block); found != index_.end()) {
    recency_.splice(recency_.begin(), recency_, recency_.iterator_to(*found));
    return true;
  }
  Entry* entry;
  if (recency_.size() < entries_.size()) {
    entry = &entries_[recency_.size()];  // entries are taken in order and never given back
  } else {
    entry = &recency_.back();
    recency_.pop_back();
    index_.erase(index_.iterator_to(*entry));
  }
  entry->block = block;
  recency_.push_front(*entry);
  index_.insert(*entry);
  return false;
}

uint64_t SampledLru::memory_size() const {
  return entries_.capacity() * sizeof(Entry) + buckets_.capacity() * sizeof(Index::bucket_type);
}

}  // namespace tiercache
