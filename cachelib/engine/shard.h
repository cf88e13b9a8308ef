// Shard: one part of the cache: the cache lines ShardLines deals it (stripes of the SSD's lines)
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
#include "cachelib/engine/shard_lines.h"
#include "cachelib/engine/slot_table.h"
#include "policy/admission/admission_policy.h"
#include "policy/replacement/replacement_policy.h"

namespace tiercache {

class Shard {
 public:
  static constexpr uint32_t kNoLine = ~uint32_t{0};

  // `keep_reserve`: hold count/256 lines (1..256) durably free for misses while victims wait in
  // limbo (only worth it when lines get trusted: CacheOptions::trust_interval > 0).
  // Shard number `number` of `lines`.
  Shard(const ShardLines& lines, uint32_t number, uint32_t sectors_per_line,
        std::unique_ptr<ReplacementPolicy> replacement, std::unique_ptr<AdmissionPolicy> admission,
        bool keep_reserve = true);

  std::mutex mu;

  // All REQUIRE mu held.
  uint32_t lookup(uint64_t core_line) const;
  // A request touched cached line `id` (replacement and admission both learn from hits).
  // Returns true when a read listed a write-only line for trust rounds again: the caller asks
  // for one (Engine::note_listed).
  bool touch(uint32_t id, bool is_write);
  // Asks the admission policy whether a miss of `core_line` deserves a line.
  Admission admit(uint64_t core_line, bool is_write);
  // Line `id`, just allocated for an admitted miss, gets a hit's standing in replacement
  // (Admission::warm); the admission policy is not told: it saw the miss.
  void warm(uint32_t id);
  // Maps `core_line` to a durably free line, first evicting the replacement policy's victim
  // (a line for which can_reuse(id) holds) when capacity() lines are in use. A victim the SSD may
  // still hold a trusted record of goes to limbo (*to_limbo set): the caller stages its free
  // record and calls add_limbo(); meanwhile the reserve serves. kNoLine when no line is free (the
  // whole reserve is in limbo: the persist that frees it gives lines again), or when `core_line`
  // itself is in limbo (two records must never map one core line). The new line has no valid
  // sectors and is untrusted, durably (its SSD record is free).
  uint32_t allocate(uint64_t core_line, const std::function<bool(uint32_t)>& can_reuse,
                    uint32_t* to_limbo, bool* evicted);
  // Line `id` holds no sector any more (a TRIM emptied it): it leaves the index and the policies
  // as an eviction would, without telling admission (the data is gone, not pushed out). Freed at
  // once when no durable record claims it; otherwise parked in limbo: returns true, and the
  // caller stages its free record and calls add_limbo().
  bool drop_empty(uint32_t id);
  // Lines the policies fill: all but the reserve kept durably free, so a miss does not wait for
  // the persist that frees its victim.
  uint32_t capacity() const { return slots_.size() - reserve_; }
  uint32_t reserve() const { return reserve_; }
  // Write-back over a whole trusted line: maps the line's core line to a fresh (durably free,
  // untrusted) line instead and puts line `id` in limbo, so the write need not wait for an
  // untrust persist; the caller stages `id`'s free record and calls add_limbo(). A crash before
  // that record is durable leaves a clean record and a dirty one for the block: the load keeps
  // the dirty one. kNoLine if no free line. REQUIRES: `id` has no dirty sectors.
  uint32_t move_to_new_line(uint32_t id);
  // Evicted line `id` is free once persist epoch `need` has completed.
  void add_limbo(uint32_t id, uint64_t need);
  // True if `core_line`'s last line is in limbo: the SSD may still trust it, so the core line
  // may be neither written on the core nor mapped again before limbo_need() completes.
  bool in_limbo(uint64_t core_line) const;
  uint64_t limbo_need() const { return limbo_need_; }
  uint64_t limbo_lines() const { return limbo_.size(); }
  // Makes a free line hold `record` (used at load); dirty, it is tagged `dirty_epoch`.
  void install(uint32_t id, const LineRecord& record, uint32_t dirty_epoch);

  uint32_t number() const { return number_; }
  bool owns(uint32_t id) const { return id < lines_.lines() && lines_.shard_of(id) == number_; }
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
  // Applies what persist `completed_epoch` made durable: staged clean lines, limbo lines, untrusts.
  void release_durable(uint64_t completed_epoch);

  // Warm after a crash (docs/io-paths.md). An untrusted line's record claims only its dirty
  // sectors; a trust round (Engine::trust_round) trusts it again once a core flush covers it.
  bool untrusted(uint32_t id) const { return slots_.untrusted(local(id)); }
  // No durable record trusts the line's clean copies: writing them needs no persist first.
  bool untrust_durable(uint32_t id) const {
    return slots_.untrusted(local(id)) && slots_.untrust_durable(local(id));
  }
  // The line's clean data changes or is about to: untrusted (if not yet), no trust candidate.
  // Returns true if it was trusted: the caller stages the record and calls add_untrusting().
  bool mark_untrusted(uint32_t id);
  // Untrusts every line in use (a detach: the core may change without the cache), calling
  // changed(id) for each that was trusted (its record now claims only dirty sectors).
  void untrust_all(const std::function<void(uint32_t)>& changed);
  // The untrust of line `id` is durable once persist epoch `need` completes.
  void add_untrusting(uint32_t id, uint64_t need);
  // The persist epoch after which every untrust staged so far is durable.
  uint64_t untrust_need() const { return untrust_need_; }
  // Written through and not read since (wt.cpp): a trust round leaves such a line untrusted, so
  // the next write over it waits for no persist (trusting it would make every write-through
  // rewrite wait for one: docs/io-paths.md "Warm after a crash"). A read clears it and lists
  // the line for the next round.
  bool write_only(uint32_t id) const { return slots_.write_only(local(id)); }
  // Returns true when clearing it listed the (untrusted) line for trust rounds again.
  bool set_write_only(uint32_t id, bool on);
  // Trust round, before its core flush: marks untrusted, unlocked lines (only durably untrusted
  // ones, and no write-only ones, when `durable_only`: a round's walk; all of them when the cache
  // closes idle). Returns how many.
  uint64_t mark_trust_candidates(bool durable_only = true);
  // Trust round, after its core flush: trusts the candidates no change touched since, calling
  // changed(id) for each (its record now claims its clean sectors). Returns how many.
  uint64_t trust_candidates(const std::function<void(uint32_t)>& changed);
  // The same two walks in steps (Engine::trust_round): begin_trust_walk() fixes the walk's end at
  // the list's length; each step walks at most `max` more entries (one shard-lock hold) and
  // returns true at that end. Lines untrusted between steps are appended past the end, and the
  // list is not compacted while a walk runs (list_untrusted), so the position stays valid. The
  // trust walk compacts as it goes: it keeps only the entries of lines still untrusted, and drops
  // those of unmarked write-only lines (a read lists them again).
  void begin_trust_walk();
  bool mark_trust_step(uint32_t max, bool durable_only, uint64_t& marked);
  bool trust_step(uint32_t max, const std::function<void(uint32_t)>& changed, uint64_t& trusted);
  // Lines untrusted now (some may be waiting for their untrust to be durable).
  uint64_t untrusted_lines() const { return untrusted_count_; }

  // Appends the core lines of up to `max` dirty lines (of dirty epoch `epoch` only, if >= 0),
  // continuing where the last call stopped.
  void collect_dirty(std::vector<uint64_t>& out, size_t max, int epoch = -1);

  // The persist epoch that must complete before the shard's latest change of dirty state is on
  // the SSD (Engine::set_dirty sets it; CacheOptions::commit_before_ack waits for it).
  std::atomic<uint64_t> dirty_record_epoch{0};

  LineLockTable& locks() { return locks_; }
  const LineLockTable& locks() const { return locks_; }
  uint64_t used_lines() const { return used_; }
  // Whether the shard has lines no data uses yet (a hint, read without the lock: the sequential
  // detector caches reads of long streams while there is room, since they push nothing out).
  bool has_room() const { return has_room_.load(std::memory_order_relaxed); }
  uint64_t dirty_lines() const { return dirty_count_; }
  uint32_t line_count() const { return slots_.size(); }
  // A live policy change, in steps (Engine::set_policies), so no lock hold is longer than one
  // step. begin_policy_change() puts a non-null `admission` in force at once (it starts with no
  // history) and hands the old one back; a non-null `replacement` becomes the learner. Each
  // learn_policy() teaches the learner the mapped lines among the next `max_lines` lines, in line
  // order, as at load (limbo lines were evicted already), and returns true once it has passed
  // every line; end_policy_change() then puts it in force and hands the old policy back through
  // `replacement` (null if none was learning). Between steps the old replacement policy stays in
  // force and picks the victims: it knows every mapped line, the learner only those it passed.
  // Every insert, hit and eviction of a line the learner passed reaches it too, so it ends
  // knowing exactly the mapped lines, each once. Old policies are freed after mu is released.
  // Dirty and trust state is untouched. All REQUIRE mu held; one change at a time.
  void begin_policy_change(std::unique_ptr<ReplacementPolicy>& replacement,
                           std::unique_ptr<AdmissionPolicy>& admission);
  bool learn_policy(uint32_t max_lines);
  void end_policy_change(std::unique_ptr<ReplacementPolicy>& replacement);
  // True between begin_policy_change() with a replacement policy and end_policy_change().
  bool learning() const { return learner_ != nullptr; }
  const ReplacementPolicy& replacement() const { return *replacement_; }
  const AdmissionPolicy& admission() const { return *admission_; }
  // Bytes of RAM this shard's line state, index, bitmaps and policies use.
  uint64_t memory_size() const;

 private:
  struct CleanStaged {
    uint32_t id;
    uint64_t epoch;
  };
  struct Pending {
    uint32_t id;
    uint64_t need;  // persist epoch that makes it durable
  };
  Shard(const ShardLines& lines, uint32_t number, uint32_t count, uint32_t sectors_per_line,
        std::unique_ptr<ReplacementPolicy> replacement, std::unique_ptr<AdmissionPolicy> admission,
        bool keep_reserve);
  uint32_t local(uint32_t id) const { return lines_.local(id); }
  uint32_t id_of(uint32_t slot) const { return lines_.id(number_, slot); }
  // The replacement policy's events, forwarded to a learner that passed `slot` already.
  void policy_insert(uint32_t slot, uint64_t core_line);
  void policy_evict(uint32_t slot, uint64_t core_line);
  bool learner_passed(uint32_t slot) const { return learner_ && slot < learn_cursor_; }
  uint32_t take_free_line();
  // Unmaps line `slot` (clean, unused) from the policies; the caller frees it or puts it in limbo.
  void evict(uint32_t slot);
  // Out of the policies and the used count (an eviction, or a line emptied).
  void unlist(uint32_t slot);
  // A line out of use: freed at once when no durable record claims it, else parked in limbo
  // (returns true).
  bool retire(uint32_t slot);
  void note_used() { has_room_.store(used_ < capacity(), std::memory_order_relaxed); }
  // Limbo lines are indexed under their core line with this bit set: a lookup never finds them,
  // in_limbo() does, and the block itself may be mapped again (move_to_new_line).
  static constexpr uint64_t kLimboKey = uint64_t{1} << 47;
  void move_to_limbo(uint32_t slot);
  // Gives line `slot`, no longer indexed under `core_line`, the limbo key.
  void park_in_limbo(uint32_t slot, uint64_t core_line);
  // Maps free line `slot` to `core_line`: no sectors, untrusted, indexed, known to the policy.
  void map_fresh_line(uint32_t slot, uint64_t core_line);
  // All of map_fresh_line() but the index entry.
  void start_fresh_line(uint32_t slot, uint64_t core_line);
  // Returns line `slot` to the free map.
  void free_slot(uint32_t slot);
  // Drops stale and duplicate entries of untrusted_list_.
  void compact_untrusted();
  // Lines untrusted since the last trust round's check.
  void list_untrusted(uint32_t slot);
  static bool Test(const std::vector<uint64_t>& bits, uint32_t i) { return bits[i / 64] >> (i % 64) & 1; }
  static void Assign(std::vector<uint64_t>& bits, uint32_t i, bool on);

  const ShardLines lines_;
  const uint32_t number_;
  const uint32_t reserve_;
  SlotTable slots_;
  LineIndex index_;
  std::vector<uint64_t> free_map_;   // bit per line: free
  std::vector<uint64_t> dirty_map_;  // bit per line: has dirty sectors
  uint32_t free_cursor_ = 0, dirty_cursor_ = 0;
  uint64_t used_ = 0, dirty_count_ = 0;
  std::atomic<bool> has_room_{true};  // used_ < capacity(), updated with used_
  std::array<uint64_t, 4> dirty_per_epoch_{};
  std::vector<CleanStaged> clean_staged_;
  std::vector<uint32_t> waiting_ids_;  // release_durable's scratch: lines with a newer entry
  std::vector<Pending> limbo_;        // evicted lines a durable record may still trust
  std::vector<Pending> untrusting_;   // untrusts not yet known durable
  std::vector<uint32_t> untrusted_list_;  // slots; stale and duplicate entries until compacted
  uint64_t limbo_need_ = 0, untrust_need_ = 0;
  uint64_t untrusted_count_ = 0;
  // A trust walk: the next entry, the walk's end, and the entries the trust walk kept so far.
  size_t walk_pos_ = 0, walk_end_ = 0, walk_kept_ = 0;
  bool walking_ = false;
  uint32_t free_count_ = 0;
  std::unique_ptr<ReplacementPolicy> replacement_;
  std::unique_ptr<AdmissionPolicy> admission_;
  // During a live change: the replacement policy learning the lines, the first line it has not
  // passed yet, and how many lines it knows (checked against used_ at the end).
  std::unique_ptr<ReplacementPolicy> learner_;
  uint32_t learn_cursor_ = 0;
  uint64_t learner_lines_ = 0;
  LineLockTable locks_;
};

}  // namespace tiercache
