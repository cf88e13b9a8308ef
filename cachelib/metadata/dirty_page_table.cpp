#include "cachelib/metadata/dirty_page_table.h"

#include <algorithm>
#include <cassert>

namespace tiercache {

DirtyPageTable::DirtyPageTable(uint64_t page_count) : dirty_(page_count, 0), round_(page_count, 0) {}

void DirtyPageTable::mark(uint64_t page) {
  if (dirty_[page]) return;
  dirty_[page] = 1;
  ++dirty_count_;
  list_.push_back(page);
  // Pages cleaned one by one stay in the list: compacting when it doubles keeps it bounded.
  if (list_.size() > 2 * dirty_.size()) compact_list();
}

void DirtyPageTable::journaled(uint64_t page, uint64_t round) {
  mark(page);
  if (round_[page] != 0) return;
  assert(by_round_.empty() || by_round_.back().second <= round);
  round_[page] = round;
  by_round_.emplace_back(page, round);
}

void DirtyPageTable::clean(uint64_t page) {
  if (!dirty_[page]) return;
  dirty_[page] = 0;
  --dirty_count_;
  round_[page] = 0;
}

void DirtyPageTable::compact_list() {
  std::erase_if(list_, [this](uint64_t p) { return !dirty_[p]; });
  std::sort(list_.begin(), list_.end());
  list_.erase(std::unique(list_.begin(), list_.end()), list_.end());
}

std::vector<uint64_t> DirtyPageTable::take_all() {
  compact_list();
  std::vector<uint64_t> pages;
  pages.swap(list_);
  for (uint64_t p : pages) clean(p);
  by_round_.clear();
  return pages;
}

std::vector<uint64_t> DirtyPageTable::take_oldest(size_t max) {
  std::vector<uint64_t> pages;
  while (pages.size() < max && oldest_round()) {
    uint64_t page = by_round_.front().first;
    by_round_.pop_front();
    clean(page);
    pages.push_back(page);
  }
  std::sort(pages.begin(), pages.end());
  return pages;
}

std::optional<uint64_t> DirtyPageTable::oldest_round() {
  while (!by_round_.empty() && round_[by_round_.front().first] != by_round_.front().second) {
    by_round_.pop_front();
  }
  if (by_round_.empty()) return std::nullopt;
  return by_round_.front().second;
}

}  // namespace tiercache
