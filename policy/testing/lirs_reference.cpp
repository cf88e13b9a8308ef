// LIRS: blocks with a short reuse distance (LIR) hold 99% of the cache; the other 1% holds
// resident HIR blocks in a FIFO queue Q. The stack S orders blocks by recency down to the oldest
// LIR block, keeping non-resident HIR entries so a quick return can promote them to LIR.
#include <algorithm>
#include <list>
#include <unordered_map>

#include "policy/testing/reference_caches.h"

namespace tiercache {
namespace {

class LirsReference final : public CacheModel {
 public:
  explicit LirsReference(uint32_t capacity)
      : capacity_(capacity),
        hir_capacity_(std::max<uint32_t>(1, capacity / 100)),
        lir_capacity_(capacity > hir_capacity_ ? capacity - hir_capacity_ : 1) {}
  const char* name() const override { return "lirs"; }
  uint64_t ssd_writes() const override { return writes_; }

  bool access(uint64_t block) override {
    Entry& e = entries_[block];
    const bool hit = e.state != kNonResident;
    if (e.state == kLir) {
      to_stack_top(block, e);
    } else if (e.state == kHirResident) {
      on_hir_hit(block, e);
    } else {
      ++writes_;
      on_miss(block, e);
    }
    prune();
    return hit;
  }

 private:
  enum State { kLir, kHirResident, kNonResident };
  using Iter = std::list<uint64_t>::iterator;
  struct Entry {
    State state = kNonResident;
    bool in_s = false, in_q = false;
    Iter s, q;
  };

  void to_stack_top(uint64_t block, Entry& e) {
    if (e.in_s) stack_.erase(e.s);
    stack_.push_front(block);
    e.s = stack_.begin();
    e.in_s = true;
  }
  void to_queue_end(uint64_t block, Entry& e) {
    if (e.in_q) queue_.erase(e.q);
    queue_.push_back(block);
    e.q = std::prev(queue_.end());
    e.in_q = true;
  }
  void leave_queue(Entry& e) {
    if (e.in_q) queue_.erase(e.q);
    e.in_q = false;
  }

  // The oldest LIR block becomes a resident HIR block at the end of Q.
  void demote_bottom_lir() {
    const uint64_t bottom = stack_.back();
    Entry& b = entries_[bottom];
    stack_.pop_back();
    b.in_s = false;
    b.state = kHirResident;
    to_queue_end(bottom, b);
  }

  void promote(uint64_t block, Entry& e) {
    e.state = kLir;
    leave_queue(e);
    to_stack_top(block, e);
    demote_bottom_lir();
  }

  void on_hir_hit(uint64_t block, Entry& e) {
    if (e.in_s) {
      promote(block, e);
    } else {
      to_stack_top(block, e);
      to_queue_end(block, e);
    }
  }

  void on_miss(uint64_t block, Entry& e) {
    if (lir_count_ < lir_capacity_) {  // warming up: the first blocks are LIR
      e.state = kLir;
      ++lir_count_;
      to_stack_top(block, e);
      return;
    }
    if (queue_.size() >= capacity_ - lir_count_) evict_front_of_queue();
    if (e.in_s) {
      promote(block, e);
    } else {
      e.state = kHirResident;
      to_stack_top(block, e);
      to_queue_end(block, e);
    }
  }

  void evict_front_of_queue() {
    const uint64_t victim = queue_.front();
    Entry& v = entries_[victim];
    leave_queue(v);
    v.state = kNonResident;
    if (!v.in_s) entries_.erase(victim);
  }

  // The bottom of S is always a LIR block: HIR entries below the oldest LIR block carry no news.
  void prune() {
    while (!stack_.empty()) {
      const uint64_t bottom = stack_.back();
      Entry& b = entries_[bottom];
      if (b.state == kLir) return;
      stack_.pop_back();
      b.in_s = false;
      if (b.state == kNonResident) entries_.erase(bottom);
    }
  }

  uint32_t capacity_, hir_capacity_, lir_capacity_;
  uint32_t lir_count_ = 0;
  std::list<uint64_t> stack_;  // S, most recent first
  std::list<uint64_t> queue_;  // Q of resident HIR blocks, oldest first
  std::unordered_map<uint64_t, Entry> entries_;
  uint64_t writes_ = 0;
};

}  // namespace

std::unique_ptr<CacheModel> MakeLirsReference(uint32_t capacity) {
  return std::make_unique<LirsReference>(capacity);
}

}  // namespace tiercache
