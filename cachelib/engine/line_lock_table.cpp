#include "cachelib/engine/line_lock_table.h"

#include <bit>
#include <cassert>

namespace tiercache {

LineLockTable::LineLockTable(size_t buckets)
    : buckets_(std::bit_ceil(std::max<size_t>(buckets, 16))),
      set_(Set::bucket_traits(buckets_.data(), buckets_.size())) {}

LineLockTable::~LineLockTable() {
  set_.clear_and_dispose([](Entry* e) { delete e; });
}

LineLockTable::Entry* LineLockTable::find(uint64_t core_line) const {
  auto it = set_.find(core_line);
  return it == set_.end() ? nullptr : const_cast<Entry*>(&*it);
}

bool LineLockTable::is_locked(uint64_t core_line) const { return find(core_line) != nullptr; }

bool LineLockTable::lock_or_wait(uint64_t core_line, bool exclusive, EventLoop* loop,
                                 EventLoop::Task& resume) {
  if (try_lock(core_line, exclusive)) return true;
  find(core_line)->waiters.push_back(Waiter{exclusive, loop, std::move(resume)});
  return false;
}

bool LineLockTable::try_lock(uint64_t core_line, bool exclusive) {
  Entry* e = find(core_line);
  if (e == nullptr) {
    std::unique_ptr<Entry> fresh;
    if (pool_.empty()) {
      fresh = std::make_unique<Entry>();
    } else {
      fresh = std::move(pool_.back());
      pool_.pop_back();
    }
    e = fresh.release();
    e->core_line = core_line;
    set_.insert(*e);
    grow_if_full();
  }
  // A fresh entry is always free: one that cannot be granted already existed, so failing leaves
  // the table as it was.
  if (!e->waiters.empty() || e->writer || (exclusive && e->readers > 0)) return false;
  if (exclusive) {
    e->writer = true;
  } else {
    ++e->readers;
  }
  return true;
}

void LineLockTable::grow_if_full() {
  if (set_.size() <= buckets_.size()) return;
  std::vector<Set::bucket_type> bigger(buckets_.size() * 2);
  set_.rehash(Set::bucket_traits(bigger.data(), bigger.size()));
  buckets_.swap(bigger);
}

void LineLockTable::grant_waiters(Entry* e) {
  while (!e->waiters.empty() && !e->writer) {
    Waiter& w = e->waiters.front();
    if (w.exclusive && e->readers > 0) break;
    if (w.exclusive) {
      e->writer = true;
    } else {
      ++e->readers;
    }
    w.loop->post(std::move(w.resume));
    e->waiters.pop_front();
  }
}

void LineLockTable::unlock(uint64_t core_line, bool exclusive) {
  Entry* e = find(core_line);
  assert(e != nullptr);
  if (exclusive) {
    assert(e->writer);
    e->writer = false;
  } else {
    assert(e->readers > 0);
    --e->readers;
  }
  grant_waiters(e);
  if (e->readers == 0 && !e->writer && e->waiters.empty()) {
    set_.erase(set_.iterator_to(*e));
    pool_.emplace_back(e);
  }
}

}  // namespace tiercache
