// S3-FIFO: new blocks enter a small FIFO (10% of the cache); those hit there move on to the main
// FIFO, the others leave and are remembered in a ghost FIFO, and a ghost that returns goes straight
// to main. Main reinserts blocks hit since their last pass (2-bit frequency) instead of evicting.
#include <algorithm>
#include <deque>
#include <unordered_map>

#include "policy/testing/reference_caches.h"

namespace tiercache {
namespace {

class S3FifoReference final : public CacheModel {
 public:
  explicit S3FifoReference(uint32_t capacity)
      : capacity_(capacity),
        small_capacity_(std::max<uint32_t>(1, capacity / 10)),
        main_capacity_(capacity - small_capacity_) {}
  const char* name() const override { return "s3fifo"; }
  uint64_t ssd_writes() const override { return writes_; }

  bool access(uint64_t block) override {
    if (auto it = cached_.find(block); it != cached_.end()) {
      it->second = std::min(it->second + 1, 3);
      return true;
    }
    ++writes_;
    while (cached_.size() >= capacity_) evict();
    if (auto g = ghost_.find(block); g != ghost_.end()) {
      ghost_.erase(g);  // its entry in ghost_order_ expires on its own
      main_.push_back(block);
    } else {
      small_.push_back(block);
    }
    cached_[block] = 0;
    return false;
  }

 private:
  void evict() {
    if (small_.size() >= small_capacity_ || main_.empty()) {
      evict_small();
    } else {
      evict_main();
    }
  }

  void evict_small() {
    while (!small_.empty()) {
      const uint64_t block = small_.front();
      small_.pop_front();
      if (cached_[block] >= 1) {
        main_.push_back(block);
        if (main_.size() > main_capacity_) return evict_main();
      } else {
        cached_.erase(block);
        remember(block);
        return;
      }
    }
  }

  void evict_main() {
    while (!main_.empty()) {
      const uint64_t block = main_.front();
      main_.pop_front();
      int& freq = cached_[block];
      if (freq > 0) {
        --freq;
        main_.push_back(block);
      } else {
        cached_.erase(block);
        return;
      }
    }
  }

  // The ghost FIFO holds as many blocks as main; a stale order entry (the block returned or was
  // remembered again later) is skipped when it reaches the front.
  void remember(uint64_t block) {
    ghost_[block] = ++ghost_stamp_;
    ghost_order_.push_back({block, ghost_stamp_});
    while (ghost_.size() > main_capacity_) {
      auto [old, stamp] = ghost_order_.front();
      ghost_order_.pop_front();
      if (auto g = ghost_.find(old); g != ghost_.end() && g->second == stamp) ghost_.erase(g);
    }
  }

  uint32_t capacity_, small_capacity_, main_capacity_;
  std::deque<uint64_t> small_, main_;              // oldest first
  std::unordered_map<uint64_t, int> cached_;       // block -> frequency 0..3
  std::unordered_map<uint64_t, uint64_t> ghost_;   // block -> stamp of its live order entry
  std::deque<std::pair<uint64_t, uint64_t>> ghost_order_;
  uint64_t ghost_stamp_ = 0;
  uint64_t writes_ = 0;
};

}  // namespace

std::unique_ptr<CacheModel> MakeS3FifoReference(uint32_t capacity) {
  return std::make_unique<S3FifoReference>(capacity);
}

}  // namespace tiercache
