// Shard: one stripe of the cache: a contiguous range of cache lines (ids first .. first+count-1)
// with their compact state (SlotTable), the index from core line to cache line (LineIndex), the
// free-line and dirty-line bitmaps, the shard's admission and replacement policies, and core-line
// locks, all under one mutex. A core line always maps to the same shard, so no operation needs two
// shard locks. Lines are named by their global id; the shard converts.
#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "cachelib/engine/line_index.h"
#include "cachelib/engine/line_lock_table.h"
#include "cachelib/engine/slot_table.h"
#include "policy/admission/admission_policy.h"
#include "policy/replacement/replacement_policy.h"

namespace tiercache {

class Shard {
 public:
  static constexpr uint32_t kNoLine = ~uint32_t{0};

  Shard(uint32_t first_id, uint32_t count, uint32_t sectors_per_line,
        std::unique_ptr<ReplacementPolicy> replacement, std::unique_ptr<AdmissionPolicy> admission);

  std::mutex mu;

  // All REQUIRE mu held.
  uint32_t lookup(uint64_t core_line) const;
  // A request touched cached line `id` (replacement and admission both learn from hits).
  void touch(uint32_t id, bool is_write);
  // Asks the admission policy whether a miss of `core_line` deserves a line.
  bool admit(uint64_t core_line, bool is_write);
  // Maps `core_line` to a free line, or evicts one for which can_reuse(id) holds; kNoLine if none.
  // The new line has no valid sectors.
  uint32_t allocate(uint64_t core_line, const std::function<bool(uint32_t)>& can_reuse,
                    bool* evicted);
  // Makes a free line hold `record` (used at load).
  void install(uint32_t id, const LineRecord& record);

  bool owns(uint32_t id) const { return id - first_id_ < slots_.size(); }
  uint64_t core_line(uint32_t id) const { return slots_.core_line(local(id)); }
  SectorBits valid(uint32_t id) const { return slots_.valid(local(id)); }
  SectorBits dirty(uint32_t id) const { return slots_.dirty(local(id)); }
  bool any_dirty(uint32_t id) const { return slots_.any_dirty(local(id)); }
  void set_valid(uint32_t id, const SectorBits& bits) { slots_.set_valid(local(id), bits); }
  // Keeps the dirty-line bitmap, count and per-epoch counts right (a line turning dirty joins
  // dirty epoch `epoch`); the caller handles counters and persistence.
  void set_dirty(uint32_t id, const SectorBits& bits, uint32_t epoch);
  // Dirty lines per dirty epoch (DirtyEpochs).
  const std::array<uint64_t, 4>& dirty_per_epoch() const { return dirty_per_epoch_; }
  bool durable_dirty(uint32_t id) const { return slots_.durable_dirty(local(id)); }
  void set_durable_dirty(uint32_t id, bool on) { slots_.set_durable_dirty(local(id), on); }
  bool clean_pending(uint32_t id) const { return slots_.clean_pending(local(id)); }
  void set_clean_pending(uint32_t id, bool on) { slots_.set_clean_pending(local(id), on); }
  LineRecord record(uint32_t id) const { return slots_.record(local(id)); }

  // A line whose durable record may still say dirty became clean at persist epoch `epoch`; once a
  // later persist completes, release_durable() lets it be reused.
  void note_clean_staged(uint32_t id, uint64_t epoch) { clean_staged_.push_back({id, epoch}); }
  void release_durable(uint64_t completed_epoch);

  // Appends the core lines of up to `max` dirty lines (of dirty epoch `epoch` only, if >= 0),
  // continuing where the last call stopped.
  void collect_dirty(std::vector<uint64_t>& out, size_t max, int epoch = -1);

  // The persist epoch that must complete before the shard's latest change of dirty state is on
  // the SSD (Engine::set_dirty sets it; CacheOptions::commit_before_ack waits for it).
  std::atomic<uint64_t> dirty_record_epoch{0};

  LineLockTable& locks() { return locks_; }
  const LineLockTable& locks() const { return locks_; }
  uint64_t used_lines() const { return used_; }
  uint64_t dirty_lines() const { return dirty_count_; }
  uint32_t first_id() const { return first_id_; }
  uint32_t line_count() const { return slots_.size(); }
  const ReplacementPolicy& replacement() const { return *replacement_; }
  const AdmissionPolicy& admission() const { return *admission_; }
  // Bytes of RAM this shard's line state, index, bitmaps and policies use.
  uint64_t memory_size() const;

 private:
  struct CleanStaged {
    uint32_t id;
    uint64_t epoch;
  };
  uint32_t local(uint32_t id) const { return id - first_id_; }
  uint32_t take_free_line();
  static bool Test(const std::vector<uint64_t>& bits, uint32_t i) { return bits[i / 64] >> (i % 64) & 1; }
  static void Assign(std::vector<uint64_t>& bits, uint32_t i, bool on);

  const uint32_t first_id_;
  SlotTable slots_;
  LineIndex index_;
  std::vector<uint64_t> free_map_;   // bit per line: free
  std::vector<uint64_t> dirty_map_;  // bit per line: has dirty sectors
  uint32_t free_cursor_ = 0, dirty_cursor_ = 0;
  uint64_t used_ = 0, dirty_count_ = 0;
  std::array<uint64_t, 4> dirty_per_epoch_{};
  std::vector<CleanStaged> clean_staged_;
  std::unique_ptr<ReplacementPolicy> replacement_;
  std::unique_ptr<AdmissionPolicy> admission_;
  LineLockTable locks_;
};

}  // namespace tiercache
