// Cache: the SSD cache in front of a core (HDD) device, itself a Device, so front-ends (NBD, ublk)
// and the benchmark drive it exactly like a plain disk. Requests come from any event-loop thread;
// completions return on the submitting loop. Mode-specific I/O paths live in one file per mode
// (wt.cpp, wb.cpp, wa.cpp, pt.cpp); admission/replacement/cleaning decisions come from policy/.
//
// Ownership: the Cache does not own the SSD or core Devices; they must outlive it.
// Thread-safety: all public methods are thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cachelib/common/event_loop.h"
#include "cachelib/common/latency_histogram.h"
#include "cachelib/device/device.h"
#include "cachelib/metadata/store_options.h"
#include "cachelib/metadata/metadata_store.h"
#include "policy/cleaning/cleaning_options.h"
#include "policy/policy_options.h"

namespace tiercache {

// Counters exported by `tiercache stats`. Byte counters count payload bytes.
struct CacheCounters {
  uint64_t read_hits = 0, read_partial_hits = 0, read_misses = 0;
  uint64_t write_hits = 0, write_misses = 0;
  uint64_t read_bypasses = 0, write_bypasses = 0;  // served by the core without the cache
  // Request bytes found in the cache (hit) or not (miss, bypasses included), by direction: the
  // byte-level hit ratio that `tiercache sim` and the policy targets use.
  uint64_t read_hit_bytes = 0, read_miss_bytes = 0, write_hit_bytes = 0, write_miss_bytes = 0;
  uint64_t bytes_read_ssd = 0, bytes_written_ssd = 0;
  uint64_t bytes_read_core = 0, bytes_written_core = 0;
  uint64_t lines_total = 0, lines_used = 0, lines_dirty = 0;  // lines_used = occupancy
  uint64_t dirty_sectors = 0;
  // Used lines whose clean copies a crash would forget now (not yet covered by a trust round).
  uint64_t lines_untrusted = 0;
  // Core writes by the cleaner that completed, and that failed (a full or failing core: the
  // lines stay dirty and the cleaner tries again later).
  uint64_t evictions = 0, cleaner_writes = 0, cleaner_write_errors = 0, cleaned_lines = 0;
  // Read-miss bytes not copied to the SSD because max_fill_backlog_bytes of fills were pending.
  uint64_t fill_skipped_bytes = 0;
  uint64_t errors = 0;
  uint64_t flushes = 0, discards = 0, write_zeroes = 0;
  // Cache SSD I/O errors (docs/io-paths.md "SSD failures"): data reads, data writes (fills
  // included), metadata persists; and how often the cache switched itself to pass-through.
  uint64_t ssd_read_errors = 0, ssd_write_errors = 0, ssd_persist_errors = 0, ssd_failovers = 0;
};

// Client request latency by path, from submission to completion on the engine's clock (FUA and
// commit-before-ack waits included): `tiercache stats`, `top` and the Prometheus histograms.
struct CacheLatency {
  LatencySnapshot hit;    // reads served wholly from the SSD
  LatencySnapshot miss;   // reads that needed the core: misses, partial hits, bypasses
  LatencySnapshot write;  // writes (the unaligned ends of a WRITE_ZEROES included)
  LatencySnapshot flush;  // FLUSH requests
};

// The SSD's health, for `tiercache status`: "ok" (no SSD error since start or the last
// reset_health), "degraded" (errors, below the threshold) or "failed" (the cache runs as
// pass-through until reset_health).
struct CacheHealth {
  std::string state = "ok";
  uint64_t read_errors = 0, write_errors = 0, persist_errors = 0;
  // Dirty data only the SSD holds (any mode): 0 while the health is "ok".
  uint64_t dirty_bytes_at_risk = 0;
};

struct CacheOptions {
  // The event loop background work (cleaner timers) runs on. Required.
  EventLoop* background_loop = nullptr;
  // Lock stripes of the line index; more shards, less contention. Must be >= 1.
  uint32_t shards = 16;
  // Cleaning policy: "target" (dirty ratio, age bound, busy share, idle drain) or "nop" (clean only
  // on flush/drain), and its knobs (policy/cleaning/cleaning_options.h). Default: "target".
  std::string cleaning = "target";
  CleaningOptions cleaning_options;
  // Policies to run instead of those recorded at create (tiercached --admission, ...); each unset
  // field keeps the recorded choice.
  PolicyOverrides policies;
  // Acknowledge a write, TRIM or WRITE_ZEROES only once the dirty-state records it depends on are
  // on the SSD, so every acknowledged write, flushed or not, survives a kill -9 of the process.
  // Needed when the client outlives the server and keeps trusting its acknowledgements (ublk with
  // user recovery). Costs a persist (SSD flush + changed metadata pages), shared by the writes in
  // flight, whenever dirty state changed since the last one. Default: false (a write is durable
  // once a FLUSH or FUA covering it completes, as on a disk with a volatile cache).
  bool commit_before_ack = false;
  // SSD I/O errors within ssd_error_window that take the cache out of the data path (it then runs
  // as pass-through, dirty data still read from the SSD, until Cache::reset_health). 0: count
  // errors, never switch. Default: 5.
  uint32_t ssd_error_threshold = 5;
  // The window of ssd_error_threshold, in nanoseconds of the background loop's clock. Must be > 0.
  // Default: 60 s.
  Nanos ssd_error_window = std::chrono::seconds(60);
  // How soon after a fill or write a line's clean data is made crash-safe (a trust round: core
  // flush, then its record persisted), so the cache stays warm after a crash or kill -9. Rounds
  // run only while lines wait; each costs a core flush, which stalls core writes in flight on
  // some disks (docs/performance.md "Warm after a crash"). 0: never (clean copies survive only
  // a clean close). Default: 5 s (as ext4's journal commit).
  Nanos trust_interval = std::chrono::seconds(5);
  // Untrusted-list entries a trust round walks per shard-lock hold (Engine::trust_step), so
  // foreground requests wait for at most one step of it. 0: a whole shard per hold (measuring).
  // Default: Engine::kTrustBatch (1024).
  uint32_t trust_batch = 1024;
  // How far ahead of a read stream served from the SSD to look for the first block it does not
  // hold, and have the core read it ahead of the stream (StreamReadahead): a disk then seeks
  // while the SSD still serves, instead of when the stream reaches it. Bytes; 0: off.
  // Default: 4 MiB.
  uint64_t stream_readahead_bytes = uint64_t{4} << 20;
  // Read-miss data copied for the SSD and not yet written there, at most. When the core serves
  // misses faster than the SSD takes their copies (a sparse or fast core, a saturated SSD), further
  // misses are served without being cached, as bcache does when its cache is congested: the
  // copies' memory and the line locks they hold stay bounded, so writes to those lines do not
  // wait behind the SSD. Bytes; must be >= one line. Default: 64 MiB.
  uint64_t max_fill_backlog_bytes = uint64_t{64} << 20;
  // How the metadata store persists: when journal steps start (StoreOptions; tiercached
  // --journal-steps). Not recorded on the SSD. Default: the store's.
  StoreOptions store;
  Status validate() const;
};

// What `tiercache status`/`stats` show of the policies: names, counters summed over shards, and
// the RAM they and the line index use.
struct PolicyReport {
  using Counters = std::vector<std::pair<std::string, uint64_t>>;
  std::string admission, replacement;
  Counters admission_counters, replacement_counters, sequential_counters, cleaning_counters;
  uint64_t index_bytes = 0;  // line state, index, bitmaps and policies, summed over shards
  std::string cleaning;              // cleaning policy name
  int64_t oldest_dirty_age_ns = 0;   // upper bound, within max_dirty_age / 2
  int64_t flush_eta_ns = -1;         // at the last measured cleaning rate; -1: unknown
  uint64_t clean_rate_bytes_per_s = 0;
  std::string cleaning_reason;       // why the cleaner last cleaned or waited
  std::string cleaning_error;        // why its last batch failed; empty once a batch succeeds
  CleaningOptions cleaning_options;  // the knobs in use (options, or the last set_cleaning)
};

// How the last live change of replacement policy (Cache::set_policies) held the shard locks while
// the new policies learned the cached lines; logged as event=policy_swap (docs/metrics.md).
struct PolicySwapReport {
  uint32_t shards = 0;  // shards whose replacement policy changed (0: none did yet)
  uint64_t holds = 0;   // shard-lock holds taken to learn the lines
  uint64_t lines = 0;   // cached lines the new policies learned
  Nanos longest_hold{0};
  Nanos total_hold{0};  // summed over holds (mean: total_hold / holds)
  Nanos total{0};       // from the first hold's start to the last one's end
};

// How the last trust round (CacheOptions::trust_interval, Cache::trust_round) held the shard
// locks: its walks take at most CacheOptions::trust_batch list entries per hold.
struct TrustRoundReport {
  uint64_t holds = 0;    // shard-lock holds of both walks (marking and trusting)
  uint64_t marked = 0;   // lines marked as trust candidates before the core flush
  uint64_t trusted = 0;  // lines trusted after it
  Nanos longest_hold{0};
  Nanos total_hold{0};  // summed over holds
  Nanos total{0};       // from the first hold's start to the last one's end (with the core flush)
};

class Engine;

// The cache's logical sector: clients may read and write any multiple of it, as on a 512e disk;
// the engine works in 4096-byte sectors and read-modify-writes the partial ones.
inline constexpr uint32_t kLogicalSectorSize = 512;

class Cache final : public Device {
 public:
  using OpenCallback = std::function<void(Result<std::unique_ptr<Cache>>)>;

  // Opens a cache formatted by MetadataStore::Format; the cache is warm if it was closed cleanly.
  static void Open(Device& ssd, Device& core, const CoreIdentity& core_id,
                   const CacheOptions& options, OpenCallback done);
  ~Cache() override;

  CacheMode mode() const;
  // Switches mode while I/O runs. With drain, leaving wb first cleans all dirty data.
  void set_mode(CacheMode mode, bool drain, IoCallback done);
  // The policies in force (Engine::policies).
  PolicyOptions policies() const;
  // Changes the policies while I/O runs and records them in the superblock (Engine::
  // set_policies): InvalidArgument for an unknown name, Busy once close() was called; on a
  // failed superblock write the old policies stay in force.
  void set_policies(const PolicyOptions& next, IoCallback done);
  // Runs cleaning policy `policy` ("target" or "nop") with `options` from the cleaner's next
  // decision on, for this open only (not recorded); its counters start at 0. InvalidArgument for
  // an unknown name or invalid options, Busy once close() was called: the policy in use stays.
  void set_cleaning(const std::string& policy, const CleaningOptions& options, IoCallback done);
  // Writes all dirty data to the core; progress(remaining dirty lines) is called as it goes.
  void clean_all(std::function<void(uint64_t remaining)> progress, IoCallback done);
  // Stops background work, waits for in-flight I/O, persists metadata, marks clean shutdown.
  // No I/O may be submitted after close() is called. `forget_clean` (a detach: the core may be
  // used alone before the next open) drops every clean copy from the records: the next open
  // keeps only dirty data, as bcache and Open CAS start cold after a detach.
  void close(IoCallback done, bool forget_clean = false);

  CacheCounters counters() const;
  // Whether work outlives its request (fills after their replies, persists, rounds, timers):
  // what close() waits for. For tests that check state once the cache is quiet. Thread-safe.
  bool busy() const;
  CacheLatency latency() const;
  CacheHealth health() const;
  // The metadata store's rounds since open and its journal's fill. Thread-safe.
  MetadataCounters metadata_counters() const;
  // Brings a repaired or replaced SSD back into the data path: reads the superblock back from the
  // SSD and, if that works, clears the failed state and the error window (health "ok"). IoError
  // naming the failed check otherwise, and the health is unchanged.
  void reset_health(IoCallback done);
  PolicyReport policy_report() const;
  // The last live change of replacement policy's lock holds. Thread-safe.
  PolicySwapReport last_policy_swap() const;
  // Runs a trust round now (benchmarks and tests; rounds also run every trust_interval): Busy
  // while one runs or once close() was called. The report: last_trust_round(). Thread-safe.
  void trust_round(IoCallback done);
  TrustRoundReport last_trust_round() const;
  const SuperblockInfo& info() const;

 protected:
  void read_impl(uint64_t offset, std::span<std::byte> buf, IoCallback cb) override;
  void write_impl(uint64_t offset, std::span<const std::byte> buf, WriteFlags flags,
                  IoCallback cb) override;
  void flush_impl(IoCallback cb) override;
  void discard_impl(uint64_t offset, uint64_t length, IoCallback cb) override;
  void write_zeroes_impl(uint64_t offset, uint64_t length, WriteFlags flags,
                         IoCallback cb) override;
  void prefetch_impl(uint64_t offset, uint64_t length, IoCallback cb) override;

 private:
  void write_zeroes_unaligned(uint64_t offset, uint64_t length, WriteFlags flags, IoCallback cb);
  explicit Cache(std::unique_ptr<Engine> engine);
  std::unique_ptr<Engine> engine_;
};

}  // namespace tiercache
