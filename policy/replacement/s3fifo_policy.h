// S3FifoPolicy: S3-FIFO (Yang et al., SOSP'23) on fixed slots: a small probationary FIFO, a main
// queue run as a 2-bit CLOCK over slot positions, and a ghost filter of blocks the small FIFO
// dropped unused. Scan- and loop-resistant at 2.35 bytes per slot with the default small share.
// Owns its arrays and ghost; not thread-safe (one per shard, under the shard lock).
#pragma once

#include <cstdint>
#include <vector>

#include "policy/common/ghost_filter.h"
#include "policy/replacement/replacement_policy.h"

namespace tiercache {

// - on_insert: a block the ghost remembers goes straight to main (freq 0), any other to the small
//   FIFO; when the small FIFO already holds its share (free slots during warm-up or after
//   invalidations), its oldest block moves to main first ("small_overflows", or "promotions"
//   when it had a hit).
// - on_hit: freq += 1, capped at 3, in either queue.
// - pick_victim: while the small FIFO holds its share, its oldest block is promoted to main if
//   it had a hit (keeping its freq), else proposed; otherwise main's hand decrements and skips
//   slots with freq > 0 and proposes the first with freq 0. A refused small block is requeued
//   at the small head, a refused main block is passed by the hand (and tried again at its next
//   turn); when one queue has refused all its blocks the other is tried. Promotions and
//   decrements are not tries: only the max_scan blocks offered to can_evict() are. The hand
//   rests on a proposal until it is evicted, so a block inserted into the freed slot is the
//   last one the hand reaches, as at main's head.
// - on_evict of a small block without hits remembers the block in the ghost (capacity: main's
//   size in slots).
// Memory per slot: 1 state byte (freq, queue, stale small-ring entries) + 4.5 * share bytes of
// small ring + (1 - share) bytes of ghost: 2 + 3.5 * share, 2.35 at the default share 0.1.
class S3FifoPolicy final : public ReplacementPolicy {
 public:
  static constexpr double kDefaultSmallShare = 0.1;
  // REQUIRES: capacity > 0, 0 < small_share < 1.
  explicit S3FifoPolicy(uint32_t capacity, double small_share = kDefaultSmallShare);

  const char* name() const override { return "s3fifo"; }
  void on_insert(Slot slot, uint64_t block) override;
  void on_hit(Slot slot) override;
  void on_remove(Slot slot) override { vacate(slot); }
  std::optional<Slot> pick_victim(const std::function<bool(Slot)>& can_evict,
                                  uint32_t max_scan) override;
  void on_evict(Slot slot, uint64_t block) override;
  uint64_t memory_size() const override;
  void visit_counters(const CounterVisitor& visit) const override;

  uint32_t small_target() const { return small_target_; }
  uint32_t small_size() const { return small_live_; }
  uint32_t main_size() const { return main_count_; }
  Slot hand() const { return hand_; }

 private:
  enum Queue : uint8_t { kFree = 0, kSmall = 1, kMain = 2 };
  // State byte: bits 0-1 freq, bits 2-3 queue, bits 4-7 stale entries of the slot in ring_.
  static constexpr uint8_t kFreqMask = 0x03, kQueueShift = 2, kQueueMask = 0x0c;
  static constexpr uint8_t kStaleShift = 4, kMaxStale = 15;
  struct Scan;

  uint8_t freq(Slot s) const { return state_[s] & kFreqMask; }
  Queue queue(Slot s) const { return Queue((state_[s] & kQueueMask) >> kQueueShift); }
  uint8_t stale(Slot s) const { return state_[s] >> kStaleShift; }
  void set_freq(Slot s, uint8_t f) { state_[s] = (state_[s] & ~kFreqMask) | f; }
  void set_queue(Slot s, Queue q) { state_[s] = (state_[s] & ~kQueueMask) | (q << kQueueShift); }
  void add_stale(Slot s, int delta) { state_[s] = uint8_t(state_[s] + delta * (1 << kStaleShift)); }

  void advance_hand() { hand_ = hand_ + 1 == capacity_ ? 0 : hand_ + 1; }
  void vacate(Slot slot);
  void move_to_main(Slot slot);
  std::optional<Slot> step_small(const std::function<bool(Slot)>& can_evict, Scan& scan);
  std::optional<Slot> step_main(const std::function<bool(Slot)>& can_evict, Scan& scan);

  // The small FIFO is a ring of slot indexes, oldest at ring_tail_. A block that leaves it from
  // the middle (removed, or evicted though not the oldest) leaves a stale entry behind, counted
  // in its state byte; a slot's live entry is always its newest, so its first stale() entries
  // are the stale ones and are dropped when they reach the tail or on compaction.
  Slot small_oldest();      // drops stale entries at the tail; REQUIRES small_live_ > 0
  Slot pop_small_oldest();  // takes small_oldest() out of the small FIFO
  void ring_pop();
  void ring_push(Slot slot);
  void ring_compact();
  void leave_small_ring(Slot slot);

  uint32_t capacity_;
  uint32_t small_target_;  // blocks the small FIFO holds at most (its share of capacity)
  std::vector<uint8_t> state_;
  std::vector<Slot> ring_;  // small_target_ plus 1/8 slack for stale entries
  uint32_t ring_tail_ = 0, ring_used_ = 0;
  uint32_t small_live_ = 0, main_count_ = 0;
  Slot hand_ = 0;  // main's clock hand, over all slot positions
  GhostFilter ghost_;

  uint64_t ghost_hits_ = 0, small_evictions_ = 0, main_evictions_ = 0;
  uint64_t promotions_ = 0, small_overflows_ = 0;
};

}  // namespace tiercache
