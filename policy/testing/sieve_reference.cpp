// SIEVE: one FIFO with a visited bit per block; the hand walks from the oldest block towards
// the newest, clearing visited bits, and evicts the first unvisited block; new blocks enter at
// the head.
#include <list>
#include <unordered_map>

#include "policy/testing/reference_caches.h"

namespace tiercache {
namespace {

class SieveReference final : public CacheModel {
 public:
  explicit SieveReference(uint32_t capacity) : capacity_(capacity) {}
  const char* name() const override { return "sieve"; }
  uint64_t ssd_writes() const override { return writes_; }

  bool access(uint64_t block) override {
    if (auto it = where_.find(block); it != where_.end()) {
      it->second->visited = true;
      return true;
    }
    if (queue_.size() == capacity_) evict();
    queue_.push_front(Entry{block, false});
    where_[block] = queue_.begin();
    ++writes_;
    return false;
  }

 private:
  struct Entry {
    uint64_t block;
    bool visited;
  };
  using Iter = std::list<Entry>::iterator;

  void evict() {
    Iter it = hand_valid_ ? hand_ : std::prev(queue_.end());
    while (it->visited) {
      it->visited = false;
      it = it == queue_.begin() ? std::prev(queue_.end()) : std::prev(it);
    }
    hand_valid_ = it != queue_.begin();
    if (hand_valid_) hand_ = std::prev(it);
    where_.erase(it->block);
    queue_.erase(it);
  }

  uint32_t capacity_;
  std::list<Entry> queue_;  // newest first
  std::unordered_map<uint64_t, Iter> where_;
  Iter hand_;
  bool hand_valid_ = false;  // false: start from the oldest block
  uint64_t writes_ = 0;
};

}  // namespace

std::unique_ptr<CacheModel> MakeSieveReference(uint32_t capacity) {
  return std::make_unique<SieveReference>(capacity);
}

}  // namespace tiercache
