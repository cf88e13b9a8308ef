// Engine: the state behind a Cache shared by every I/O path: devices, metadata store, shards,
// mode, counters, persistence epochs and the cleaner. Mode-specific paths (wt.cpp, wb.cpp, ...)
// and the read path are free functions over it (see io_paths.h). Thread-safe as documented per member.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "cachelib/engine/cache.h"
#include "cachelib/engine/engine_counters.h"
#include "cachelib/engine/dirty_epochs.h"
#include "cachelib/engine/policy_set.h"
#include "cachelib/engine/shard.h"
#include "cachelib/engine/ssd_health.h"
#include "cachelib/engine/stream_readahead.h"
#include "cachelib/metadata/format.h"
#include "policy/sequential/sequential_detector.h"

namespace tiercache {

class Cleaner;
class TrustFlusher;

class Engine {
 public:
  Engine(Device& ssd, Device& core, std::unique_ptr<MetadataStore> store,
         const CacheOptions& options);
  ~Engine();

  Device& ssd;
  Device& core;
  const std::unique_ptr<MetadataStore> store;
  const CacheOptions options;
  const uint32_t line_size;
  const uint32_t sectors_per_line;
  EngineCounters counters;
  // SSD error counts and the failed state (ssd_errors.h records into it).
  SsdHealth ssd_health{options.ssd_error_threshold, options.ssd_error_window};
  std::atomic<CacheMode> mode;
  std::unique_ptr<Cleaner> cleaner;
  // Runs trust rounds (trust_round) on the background loop while lines are untrusted.
  std::unique_ptr<TrustFlusher> trust_flusher;
  // Decides which requests belong to long sequential streams and bypass the cache.
  SequentialDetector sequential;
  // Reads the core ahead of a stream about to leave the cached blocks.
  std::unique_ptr<StreamReadahead> readahead;
  // When lines became dirty, coarsely: the cleaner's age bound.
  DirtyEpochs dirty_epochs;

  // Set by Cache::close: no policy change may start any more.
  std::atomic<bool> closing{false};
  // Requests (and background fills) not yet finished; close() waits for zero.
  std::atomic<uint64_t> inflight{0};
  // Foreground requests seen; the cleaner compares it to detect idleness.
  std::atomic<uint64_t> foreground_ops{0};
  // Bytes of read-miss fills copied and not yet written to the SSD (CacheOptions::
  // max_fill_backlog_bytes bounds it).
  std::atomic<uint64_t> fill_backlog_bytes{0};

  // Reserves `bytes` of fill backlog; false (and counted as skipped) when the SSD is that far
  // behind the core already.
  bool reserve_fill(uint64_t bytes);
  void release_fill(uint64_t bytes) {
    fill_backlog_bytes.fetch_sub(bytes, std::memory_order_relaxed);
  }

  // Builds the shards and their policies; InvalidArgument for an unknown policy name.
  Status init();
  // Loads shard state from the store's records (every record is trusted, after a crash too: see
  // docs/io-paths.md "Warm after a crash"), then hands the store the engine's live state as its
  // record source.
  void load_records();

  // Core lines go to shards by chunks of kShardChunkBytes (16 lines of 4 KiB; one line when lines
  // are that large): a sequential fill then takes consecutive SSD lines of one shard
  // (Shard::allocate continues after its last line), and reading the chunk back is one SSD
  // operation (the device queue merges contiguous ones). Each group of shards().size()
  // consecutive chunks covers every shard once, rotated by a hash of the group: a contiguous hot
  // range spreads evenly (docs/policies.md, "Shards and chunks"). A cache made since format
  // version 7 deals its lines to the shards in stripes of the same size (ShardLines), so the
  // chunks of a group filled in turn sit side by side on the SSD too: a warm 1 MiB read is one or
  // two SSD operations (a group's rotation splits it once unless it starts at shard 0), not 16.
  static constexpr uint32_t kShardChunkBytes = format::kShardStripeBytes;
  Shard& shard_for(uint64_t core_line) {
    const uint64_t n = shards_.size();
    const uint64_t chunk = core_line >> chunk_shift_;
    const uint64_t group = chunk / n;
    return *shards_[(chunk - group * n + (group * 0x9E3779B97F4A7C15ull >> 32)) % n];
  }
  // The shard owning cache line `id`.
  Shard& shard_of(uint32_t id) { return *shards_[shard_lines_.shard_of(id)]; }
  std::vector<std::unique_ptr<Shard>>& shards() { return shards_; }
  uint64_t ssd_offset(uint32_t line_id, uint32_t sector) const {
    return store->data_offset(line_id) + uint64_t(sector) * kSectorSize;
  }

  // REQUIRES shard.mu. True if line `id` may be reused for another core line now.
  bool can_reuse(Shard& shard, uint32_t id) const;
  // REQUIRES shard.mu. Maps core_line to a durably free line (Shard::allocate), counting
  // evictions and staging the free record of a victim that went to limbo; kNoLine if none can be
  // had now.
  uint32_t allocate_line(Shard& shard, uint64_t core_line);
  // A miss the admission policy admitted: its line, kNoLine when none could be had now; then
  // `wait_need` is the persist epoch that frees the lines waiting in limbo (0: none does), after
  // which a retry (place_line) may find one. `warm`: replacement gives it a hit's standing.
  struct AdmittedLine {
    uint32_t id = Shard::kNoLine;
    bool warm = false;
    uint64_t wait_need = 0;
  };
  // REQUIRES shard.mu. A miss of `core_line`: asks the shard's admission policy and, when it
  // admits, places it (place_line). nullopt when refused.
  std::optional<AdmittedLine> admit_line(Shard& shard, uint64_t core_line, bool is_write);
  // REQUIRES shard.mu. Allocates a line for an admitted miss (allocate_line), warm in
  // replacement if `warm`.
  AdmittedLine place_line(Shard& shard, uint64_t core_line, bool warm);
  // REQUIRES shard.mu. After the wait for AdmittedLine::wait_need: the block's line if another
  // request mapped it meanwhile, else a newly placed one; kNoLine if there is still none.
  uint32_t line_after_wait(Shard& shard, uint64_t core_line, bool warm);
  // Runs `then` once persist epoch `need` has completed: at once (OK) if it has, else after a
  // persist (its status). REQUIRES no shard lock held (a persist round takes them).
  void when_persisted(uint64_t need, IoCallback then);
  // REQUIRES shard.mu. Line `id`'s clean data is about to change or just changed: its record stops
  // claiming clean sectors. Returns the persist epoch after which no durable record trusts them
  // (0: none does now).
  uint64_t untrust(Shard& shard, uint32_t id);
  // A read listed a write-only line for trust rounds again (Shard::touch): asks for a round.
  void note_listed();
  // REQUIRES shard.mu. Shard::move_to_new_line, staging the old line's free record (limbo).
  // Returns the new line, or kNoLine when none is free.
  uint32_t move_to_new_line(Shard& shard, uint32_t id);
  // REQUIRES shard.mu and line `id`'s lock. A TRIM left line `id` without sectors: it is freed
  // (Shard::drop_empty), at once or after the persist of its free record.
  void drop_empty_line(Shard& shard, uint32_t id);
  // True once persist epoch `need` has completed (0 is always complete).
  bool persisted(uint64_t need) const {
    return persist_completed_.load(std::memory_order_acquire) >= need;
  }
  // Trust round: persists pending untrusts, marks untrusted lines, flushes the core, trusts the
  // lines no change touched meanwhile and persists their records (docs/io-paths.md).
  void trust_round(IoCallback done);
  // At close, with nothing in flight and the core flushed: trusts every line.
  void trust_all_idle();
  // At close after a detach: untrusts every line, so the next open keeps only dirty data.
  void untrust_all_idle();
  // CacheOptions::trust_batch's default: a hold of ~0.2 ms (~150 ns a line); larger batches
  // made readers wait longer for a shorter round (docs/performance.md "Trust rounds in steps").
  static constexpr uint32_t kTrustBatch = 1024;
  // The last trust round's lock holds and lines (tests and benchmarks). Thread-safe.
  TrustRoundReport last_trust_round() const;
  // REQUIRES shard.mu. Sets line `id`'s dirty sectors to `dirty`: updates the dirty bitmap, the
  // counters, and marks the record for the next persist().
  void set_dirty(Shard& shard, uint32_t id, const SectorBits& dirty);
  // REQUIRES shard.mu. Line `id`'s valid sectors or mapping changed without a dirty change: its
  // record is rewritten at the next persist.
  void note_changed(uint32_t id);
  // The policies in force: options.policies over the ones recorded in the superblock, then each
  // set_policies() since. Thread-safe.
  PolicyOptions policies() const;
  // Live change (`tiercache policy`, policy_change.cpp): records `next` in the superblock, then
  // puts it in force shard by shard (only the policies whose name changed are replaced) and
  // reconfigures the sequential detector; done once all of it is in force. A new replacement
  // policy learns the cached lines kPolicyLearnBatch at a time per shard-lock hold
  // (Shard::begin_policy_change), with foreground I/O running between holds.
  // InvalidArgument for an unknown name; Busy while closing or during another change; close()
  // waits for a change that started. If the superblock write fails, the old policies stay in
  // force (and are written back), and done gets the error.
  void set_policies(const PolicyOptions& next, IoCallback done);
  // Lines a new replacement policy learns per shard-lock hold: a hold of ~0.06-0.08 ms (LRU,
  // CLOCK, SIEVE) to ~0.4 ms (S3-FIFO) on this project's VM (docs/policies.md "Learning in steps").
  static constexpr uint32_t kPolicyLearnBatch = 16384;
  // The last live change of replacement policy's lock holds (event=policy_swap). Thread-safe.
  PolicySwapReport last_policy_swap() const;
  // Policy names in use, and their counters summed over shards.
  void visit_policy_counters(const CounterVisitor& visit_admission,
                             const CounterVisitor& visit_replacement) const;

  // How long the free record of a line put in limbo may wait for company (persist_limbo_soon).
  static constexpr Nanos kLimboPersistDelay = std::chrono::milliseconds(50);
  // Writes staged records and flushes the SSD; then every record staged before the call is durable.
  void persist(IoCallback done);
  // FLUSH: every write completed before the call becomes durable (core flushed, SSD records persisted).
  void flush_all(IoCallback done);
  // A write of dirty sectors' data to the SSD completed: only an SSD flush makes it durable, so a
  // FLUSH may not overlook a failed persist until one has succeeded since.
  void note_dirty_data_written() { dirty_data_written_.fetch_add(1, std::memory_order_acq_rel); }
  // For options.commit_before_ack: calls done once the dirty-state records the shards holding
  // core bytes [offset, offset + length) changed up to now are durable (persisting if needed).
  void commit_then(uint64_t offset, uint64_t length, IoCallback done);

  uint64_t total_lines() const { return store->line_count(); }
  // True if every dirty-state change staged so far in the shards holding core bytes
  // [offset, offset + length) is durable (a completed persist covers it); by default, all shards.
  bool dirty_state_durable(uint64_t offset = 0, uint64_t length = UINT64_MAX);

 private:
  void fill_records(uint64_t first, std::span<LineRecord> out);
  // Starts a persist soon on the background loop (one at a time), for lines in limbo.
  void request_persist();
  // REQUIRES shard.mu. A line of `shard` went to limbo: persists at once when half the shard's
  // reserve waits there, else within kLimboPersistDelay, so that the free records of many moves
  // and evictions share one persist (its page writes and its three SSD flushes). A write or
  // flush that needs a limbo line's record durable persists without waiting for the delay.
  void persist_limbo_soon(Shard& shard);
  // REQUIRES shard.mu. Line `id` went to limbo: its free record is staged, and the persist that
  // writes it frees the line.
  void stage_limbo(Shard& shard, uint32_t id);

  // A trust round's walks (trust_round.cpp): marks trust candidates, flushes the core, then
  // trusts the candidates no change touched and persists them. Each step is one hold of one
  // shard's lock over at most options.trust_batch entries of its untrusted list; the next step
  // runs on the background loop, so foreground I/O runs between holds.
  struct TrustRound;
  void trust_step(std::shared_ptr<TrustRound> round);
  void finish_trust_round(TrustRound& round, Status status);
  std::atomic<bool> persist_requested_{false};
  std::atomic<bool> limbo_persist_armed_{false};
  std::atomic<EventLoop::TimerId> limbo_persist_timer_{0};

  // A live policy change under way (policy_change.cpp).
  struct PolicyChange;
  // One step of a change: one hold of the shard learning now (beginning the change there on its
  // first, ending it on its last), then the next step on the background loop, so that foreground
  // I/O and the cleaner run between holds; once every shard is done, puts `next` in force and
  // answers.
  void learn_policies(std::shared_ptr<PolicyChange> change);
  void finish_policy_change(PolicyChange& change);

  mutable std::mutex policies_mu_;
  PolicyOptions policies_;  // GUARDED_BY(policies_mu_)
  PolicySwapReport last_swap_;  // GUARDED_BY(policies_mu_)
  TrustRoundReport last_trust_;  // GUARDED_BY(policies_mu_)
  // One live policy change at a time: the superblock and the shards then agree.
  std::atomic<bool> policy_change_running_{false};

  // The shards' new-block rates, on which each judges a surge (set by init(); outlives shards_).
  std::unique_ptr<SurgeBoard> surge_board_;
  SurgeSlot surge_slot(uint32_t shard) const { return {surge_board_.get(), shard}; }
  std::vector<std::unique_ptr<Shard>> shards_;
  ShardLines shard_lines_{1, 1, 0};  // which lines each shard owns (set by init())
  // log2 of the lines per shard chunk (kShardChunkBytes / line_size, at least one line).
  uint32_t chunk_shift_ = 0;
  // Orders staging against the start of a persist, so an epoch number says what a persist covers.
  std::mutex persist_mu_;
  uint64_t persist_started_ = 0;                 // GUARDED_BY(persist_mu_)
  std::atomic<uint64_t> persist_completed_{0};  // highest persist epoch known durable
  // Dirty-data SSD writes completed so far, and how many of them a successful persist's flushes
  // covered.
  std::atomic<uint64_t> dirty_data_written_{0};
  std::atomic<uint64_t> dirty_data_flushed_{0};
};

}  // namespace tiercache
