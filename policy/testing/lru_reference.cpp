// Block-keyed LRU, independent of LruPolicy so the simulator's slot plumbing is checked against it.
#include <list>
#include <unordered_map>

#include "policy/testing/reference_caches.h"

namespace tiercache {
namespace {

class LruReference final : public CacheModel {
 public:
  explicit LruReference(uint32_t capacity) : capacity_(capacity) {}
  const char* name() const override { return "lru"; }
  uint64_t ssd_writes() const override { return writes_; }

  bool access(uint64_t block) override {
    if (auto it = where_.find(block); it != where_.end()) {
      order_.splice(order_.begin(), order_, it->second);
      return true;
    }
    if (order_.size() == capacity_) {
      where_.erase(order_.back());
      order_.pop_back();
    }
    order_.push_front(block);
    where_[block] = order_.begin();
    ++writes_;
    return false;
  }

 private:
  uint32_t capacity_;
  std::list<uint64_t> order_;  // most recent first
  std::unordered_map<uint64_t, std::list<uint64_t>::iterator> where_;
  uint64_t writes_ = 0;
};

}  // namespace

std::unique_ptr<CacheModel> MakeLruReference(uint32_t capacity) {
  return std::make_unique<LruReference>(capacity);
}

}  // namespace tiercache
