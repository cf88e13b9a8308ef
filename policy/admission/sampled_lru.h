// SampledLru: whether a textbook LRU with the shard's space would hit an access, on a hash-chosen
// sample of its blocks (SHARDS: an LRU of capacity / 2^shift entries sees 1 in 2^shift blocks),
// so AdaptiveAdmission can tell when its refusals cost more hits than they save. Fixed memory
// (about 40 bytes per entry, at most 511 entries with the auto sample); never allocates after
// construction; not thread-safe (one per shard).
#pragma once

#include <boost/intrusive/list.hpp>
#include <boost/intrusive/unordered_set.hpp>
#include <cstdint>
#include <vector>

namespace tiercache {

class SampledLru {
 public:
  // `entries` >= 1: the LRU's capacity in sampled blocks.
  explicit SampledLru(uint32_t entries);

  // An access to a sampled block: true when the LRU held it (a hit). It becomes the most recent;
  // on a miss the least recent block leaves when the LRU is full.
  bool access(uint64_t block);
  uint32_t size() const { return static_cast<uint32_t>(recency_.size()); }
  uint64_t memory_size() const;

 private:
  struct Entry : boost::intrusive::list_base_hook<>, boost::intrusive::unordered_set_base_hook<> {
    uint64_t block = 0;
  };
  struct EntryKey {
    using type = uint64_t;
    const type& operator()(const Entry& e) const { return e.block; }
  };
  using Recency = boost::intrusive::list<Entry, boost::intrusive::constant_time_size<true>>;
  using Index = boost::intrusive::unordered_set<Entry, boost::intrusive::key_of_value<EntryKey>,
                                                boost::intrusive::power_2_buckets<true>>;

  std::vector<Entry> entries_;  // the nodes; never reallocated (the containers point into it)
  std::vector<Index::bucket_type> buckets_;  // one per entry, rounded up to a power of 2
  Index index_;
  Recency recency_;  // front: most recent
};

}  // namespace tiercache
