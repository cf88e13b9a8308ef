// SurgeBoard: the new-block rates of every shard of one cache side by side, so that a shard judges
// a surge on the whole cache's misses rather than on the share it sees (n shards: n times the
// evidence in the same time, so a moved working set is told from chance within a few hundred
// accesses instead of a few thousand), and the cache's evidence of a surge, which every shard
// adds to. Each shard writes its own slot under its own lock; any shard reads them all.
// Thread-safe; one per cache, outliving its shards' policies.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace tiercache {

class SurgeBoard {
 public:
  // Each slot takes a cache line of its own, so a shard writing its rates on every access does
  // not slow the others' reads.
  static constexpr uint64_t kSlotBytes = 64;

  struct Rates {
    double fast = 0, slow = 0;
  };

  explicit SurgeBoard(uint32_t slots);

  uint32_t slots() const { return count_; }
  // Shard `slot`'s rates now (slot < slots()).
  void publish(uint32_t slot, const Rates& rates);
  // The mean of every slot's rates; a slot never published counts 0.
  Rates mean() const;
  // Whether the cache is in a surge, as the last shard to judge found: a surge is the cache's,
  // so a shard that had no miss while it began is in it too.
  bool surging() const { return surging_.load(std::memory_order_relaxed); }
  void set_surging(bool surging) { surging_.store(surging, std::memory_order_relaxed); }
  // The cache's evidence of a surge (NewBlockSurge's CUSUM over every shard's accesses): adds
  // `delta`, never going below 0, and returns the new value.
  double add_evidence(double delta);
  double evidence() const { return evidence_.load(std::memory_order_relaxed); }
  void clear_evidence() { evidence_.store(0, std::memory_order_relaxed); }

 private:
  struct alignas(kSlotBytes) Slot {
    std::atomic<double> fast{0}, slow{0};
  };

  uint32_t count_;
  std::unique_ptr<Slot[]> slots_;
  std::atomic<bool> surging_{false};
  alignas(kSlotBytes) std::atomic<double> evidence_{0};  // a line of its own: every shard adds
};

// Where a shard's NewBlockSurge publishes its rates and reads the cache's: no board = the shard
// judges alone (a cache of one shard, the policy simulator).
struct SurgeSlot {
  SurgeBoard* board = nullptr;
  uint32_t index = 0;
};

}  // namespace tiercache
