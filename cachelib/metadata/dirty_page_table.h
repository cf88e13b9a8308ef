// DirtyPageTable: which metadata pages hold changes their durable slot lacks, and for each the
// oldest journal round holding such a change (its "recovery round"), so a checkpoint can write the
// pages that pin the journal's oldest rounds first. Guarded by the owner's (PagedMetadataStore's)
// mutex; thread-compatible.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <utility>
#include <vector>

namespace tiercache {

class DirtyPageTable {
 public:
  explicit DirtyPageTable(uint64_t page_count);

  // `page` changed (its durable slot no longer holds it).
  void mark(uint64_t page);
  // A journal round `round` holds a change of `page`: marks it, and makes `round` its recovery
  // round unless an older round already is.
  void journaled(uint64_t page, uint64_t round);
  bool dirty(uint64_t page) const { return dirty_[page] != 0; }
  uint64_t dirty_count() const { return dirty_count_; }
  // Entries held beyond the per-page arrays (bounded by a few per page whatever the history).
  size_t list_entries() const { return list_.size() + by_round_.size(); }

  // Every dirty page, ascending; all become clean (a checkpoint of everything).
  std::vector<uint64_t> take_all();
  // Up to `max` dirty pages with the oldest recovery rounds, ascending; they become clean.
  std::vector<uint64_t> take_oldest(size_t max);
  // The oldest recovery round of any dirty page; none if no journal round holds an unwritten
  // change (journal rounds below it are covered by page slots).
  std::optional<uint64_t> oldest_round();

 private:
  void clean(uint64_t page);
  void compact_list();

  std::vector<uint8_t> dirty_;
  uint64_t dirty_count_ = 0;
  std::vector<uint64_t> list_;           // holds every dirty page; may hold clean or repeated ones
  std::vector<uint64_t> round_;          // recovery round per page, 0: none
  // (page, round) in the order rounds were given; an entry whose round is no longer the page's
  // is stale and skipped. Rounds only grow, so the front holds the oldest.
  std::deque<std::pair<uint64_t, uint64_t>> by_round_;
};

}  // namespace tiercache
