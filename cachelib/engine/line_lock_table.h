// LineLockTable: shared/exclusive locks on core lines (not cache lines: a miss must be ordered
// against writes before any cache line exists). FIFO: once someone waits, newcomers queue behind
// it, so two writes to one sector keep submission order and writers are not starved.
// A waiter is resumed by posting to the loop it waits on. Not thread-safe: guarded by the shard mutex.
#pragma once

#include <boost/intrusive/unordered_set.hpp>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include "cachelib/common/event_loop.h"

namespace tiercache {

class LineLockTable {
 public:
  explicit LineLockTable(size_t buckets);
  ~LineLockTable();

  // Takes the lock now (returns true, `resume` untouched) or queues `resume` (moved from), posted
  // to `loop` once granted.
  bool lock_or_wait(uint64_t core_line, bool exclusive, EventLoop* loop, EventLoop::Task& resume);
  // Takes the lock if it is free now (as lock_or_wait would grant it); false leaves no trace, and
  // a lock_or_wait() before the table changes would queue.
  bool try_lock(uint64_t core_line, bool exclusive);
  void unlock(uint64_t core_line, bool exclusive);
  bool is_locked(uint64_t core_line) const;
  // Hash buckets now (grows with the most locks held at once).
  size_t bucket_count() const { return buckets_.size(); }

 private:
  struct Waiter {
    bool exclusive;
    EventLoop* loop;
    EventLoop::Task resume;
  };
  struct Entry : boost::intrusive::unordered_set_base_hook<> {
    uint64_t core_line = 0;
    uint32_t readers = 0;
    bool writer = false;
    std::deque<Waiter> waiters;
  };
  struct EntryKey {
    using type = uint64_t;
    const type& operator()(const Entry& e) const { return e.core_line; }
  };
  using Set = boost::intrusive::unordered_set<Entry, boost::intrusive::key_of_value<EntryKey>,
                                              boost::intrusive::power_2_buckets<true>>;

  Entry* find(uint64_t core_line) const;
  void grant_waiters(Entry* e);
  // Doubles the buckets once entries outnumber them: a burst of locks held at once (a long read's
  // fills) must not turn every lookup into a walk of a long chain. Never shrinks, so steady
  // traffic allocates nothing.
  void grow_if_full();

  std::vector<Set::bucket_type> buckets_;
  Set set_;
  std::vector<std::unique_ptr<Entry>> pool_;  // free entries, reused without allocation
};

}  // namespace tiercache
