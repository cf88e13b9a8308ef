// ARC: T1 (seen once recently) and T2 (seen at least twice) hold the cache; the ghost lists B1
// and B2 remember what each evicted, and a ghost hit moves the target size p of T1 towards the
// list that would have kept the block.
#include <algorithm>
#include <list>
#include <unordered_map>

#include "policy/testing/reference_caches.h"

namespace tiercache {
namespace {

class ArcReference final : public CacheModel {
 public:
  explicit ArcReference(uint32_t capacity) : c_(capacity) {}
  const char* name() const override { return "arc"; }
  uint64_t ssd_writes() const override { return writes_; }

  bool access(uint64_t block) override {
    auto it = where_.find(block);
    if (it != where_.end() && (it->second.list == kT1 || it->second.list == kT2)) {
      move(block, kT2);
      return true;
    }
    ++writes_;
    if (it != where_.end()) {  // ghost hit: adapt p, then cache the block in T2
      const bool in_b1 = it->second.list == kB1;
      const double b1 = lists_[kB1].size(), b2 = lists_[kB2].size();
      p_ = in_b1 ? std::min<double>(c_, p_ + std::max(b2 / b1, 1.0))
                 : std::max(0.0, p_ - std::max(b1 / b2, 1.0));
      if (cached() == c_) replace(!in_b1);
      move(block, kT2);
      return false;
    }
    const size_t l1 = lists_[kT1].size() + lists_[kB1].size();
    const size_t total = l1 + lists_[kT2].size() + lists_[kB2].size();
    if (l1 == c_) {
      if (lists_[kT1].size() < c_) {
        drop_lru(kB1);
        if (cached() == c_) replace(false);
      } else {
        drop_lru(kT1);
      }
    } else if (total >= c_) {
      if (total >= 2ULL * c_) drop_lru(kB2);
      if (cached() == c_) replace(false);
    }
    move(block, kT1);
    return false;
  }

 private:
  enum ListId { kT1, kT2, kB1, kB2 };
  struct Where {
    ListId list;
    std::list<uint64_t>::iterator it;
  };

  size_t cached() const { return lists_[kT1].size() + lists_[kT2].size(); }

  // Moves `block` (anywhere or nowhere) to the MRU end of `to`.
  void move(uint64_t block, ListId to) {
    if (auto it = where_.find(block); it != where_.end()) {
      lists_[it->second.list].erase(it->second.it);
    }
    lists_[to].push_front(block);
    where_[block] = Where{to, lists_[to].begin()};
  }

  void drop_lru(ListId list) {
    where_.erase(lists_[list].back());
    lists_[list].pop_back();
  }

  void replace(bool hit_in_b2) {
    const double t1 = lists_[kT1].size();
    if (lists_[kT2].empty() || (t1 >= 1 && ((hit_in_b2 && t1 == p_) || t1 > p_))) {
      move(lists_[kT1].back(), kB1);
    } else {
      move(lists_[kT2].back(), kB2);
    }
  }

  uint32_t c_;
  double p_ = 0;  // target size of T1
  std::list<uint64_t> lists_[4];  // most recent first
  std::unordered_map<uint64_t, Where> where_;
  uint64_t writes_ = 0;
};

}  // namespace

std::unique_ptr<CacheModel> MakeArcReference(uint32_t capacity) {
  return std::make_unique<ArcReference>(capacity);
}

}  // namespace tiercache
