// Shard: one stripe of the cache: its own lines (ids first, first+stride, ...), index from core line
// to cache line, replacement policy, dirty set in LBA order and core-line locks, all under one
// mutex. A core line always maps to the same shard, so no operation needs two shard locks.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "cachelib/engine/cache_line.h"
#include "cachelib/engine/line_lock_table.h"
#include "policy/replacement/replacement_policy.h"

namespace tiercache {

class Shard {
 public:
  using DirtySet = boost::intrusive::set<
      CacheLine, boost::intrusive::base_hook<DirtyHook>,
      boost::intrusive::key_of_value<CacheLineKey>>;

  Shard(uint32_t first_id, uint32_t stride, uint64_t total_lines);
  ~Shard();

  std::mutex mu;

  // All REQUIRE mu held.
  CacheLine* lookup(uint64_t core_line);
  // Maps `core_line` to a free line, or evicts one for which can_reuse() holds. nullptr if none.
  // The new line has no valid sectors.
  CacheLine* allocate(uint64_t core_line, const std::function<bool(const CacheLine&)>& can_reuse,
                      bool* evicted);
  // Makes a free line hold `core_line` with the given bits (used at load); call finish_load()
  // after the last install.
  void install(uint32_t id, const LineRecord& record);
  void finish_load();
  void touch(CacheLine& line) { policy_->on_hit(local(line.id)); }
  // Call after changing line.dirty: keeps the dirty set and dirty-line count right.
  void dirty_changed(CacheLine& line);

  CacheLine& line(uint32_t id) { return lines_[(id - first_id_) / stride_]; }
  std::vector<CacheLine>& lines() { return lines_; }
  LineLockTable& locks() { return locks_; }
  DirtySet& dirty_set() { return dirty_set_; }
  uint64_t used_lines() const { return used_; }

 private:
  using Index = boost::intrusive::unordered_set<
      CacheLine, boost::intrusive::base_hook<IndexHook>,
      boost::intrusive::key_of_value<CacheLineKey>, boost::intrusive::power_2_buckets<true>>;

  uint32_t local(uint32_t id) const { return (id - first_id_) / stride_; }
  CacheLine* take_free_line();
  void map(CacheLine& line, uint64_t core_line);

  const uint32_t first_id_, stride_;
  std::vector<CacheLine> lines_;
  std::vector<uint32_t> free_;  // ids of free lines
  std::vector<Index::bucket_type> buckets_;
  Index index_;
  DirtySet dirty_set_;
  std::unique_ptr<ReplacementPolicy> policy_;
  LineLockTable locks_;
  uint64_t used_ = 0;
};

}  // namespace tiercache
