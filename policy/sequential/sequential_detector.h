// SequentialDetector: decides which requests bypass the cache because they belong to a long
// sequential stream (see SequentialOptions). Streams are tracked by position (StreamTable), reads
// and writes apart; the first cutoff bytes of every stream are cached, the rest goes to the core,
// except reads while the cache has room and reads of what read streams covered past the cutoff
// lately (StreamHistory): the first half cache of each such extent behind an admission policy
// that refuses misses, an extent that fits in half the cache behind one that admits them all.
// Thread-safe: observe() is called from every event-loop thread. Each direction has its own mutex,
// held for one scan of at most `streams` stream ends; only reconfigure() allocates.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>

#include "policy/common/policy_counters.h"
#include "policy/sequential/stream_history.h"
#include "policy/sequential/sequential_options.h"
#include "policy/sequential/stream_table.h"

namespace tiercache {

// Whether the cache has a free line, asked by SequentialDetector::observe only of a read it
// would otherwise bypass (the engine asks the shard of the read's first line).
class CacheRoom {
 public:
  virtual bool has_room() const = 0;

 protected:
  ~CacheRoom() = default;
};

class SequentialDetector {
 public:
  // What a read stream covered past the cutoff counts as read lately until `kRepeatHorizonCaches`
  // x `cache_bytes` of reads passed since; a stream reading it again is cached in the first
  // half cache of that extent, or, behind an admission policy that refuses no miss, when all of
  // it fits in half the cache (cache_bytes 0: all of it, as long as it is remembered).
  static constexpr uint64_t kRepeatHorizonCaches = 16;

  // REQUIRES: options.validate().ok().
  explicit SequentialDetector(const SequentialOptions& options, uint64_t cache_bytes = 0);

  // Records the request [offset, offset + length) and returns true when it should bypass the
  // cache: its stream had already spanned at least the direction's cutoff before it arrived.
  // So the request that reaches or crosses the cutoff is still cached; the next one bypasses.
  // Reads past the cutoff are not bypassed (the admission policy judges them like any miss)
  // when they read again an extent that read streams covered past the cutoff within the horizon
  // (pack files read at each launch; a table scanned again), within its first half cache (see
  // set_admission_refuses), or when `room` (if given) says the cache has a free line: it holds
  // nothing to protect. The rest of a larger extent read again (a loop larger than the cache) is
  // bypassed: admitting all of it would churn and cut the disk's stream into pieces.
  // Never true when disabled or for length 0. `stream_bytes`, if given, receives the bytes the
  // request's stream spanned before it (0: a new stream, or detection off). Thread-safe.
  bool observe(uint64_t offset, uint64_t length, bool is_write, uint64_t* stream_bytes = nullptr,
               const CacheRoom* room = nullptr);

  // Applies new options to a running detector (`tiercache policy`). New cutoffs apply to the
  // streams already tracked; a changed stream count (or turning detection on or off) starts with
  // no stream. Bypass counters continue. REQUIRES: options.validate().ok(). Thread-safe.
  void reconfigure(const SequentialOptions& options);

  // Whether the admission policy refuses misses (AdmissionRefusesMisses; the engine sets it at
  // start and at each policy change). Default true: reads within the first half cache of an
  // extent read again are repeats. False (`always`): only those of an extent of at most half the
  // cache, as `always` would admit a larger one's part at every pass and churn. Thread-safe.
  void set_admission_refuses(bool refuses);

  // Heap bytes held: 20 per stream per direction and 24 per read stream for the stream
  // history (0 when disabled). Not per cache slot.
  uint64_t memory_size() const;
  // bypassed_{read,write}_{bytes,requests}; repeated_read_{bytes,requests} and
  // room_read_{bytes,requests}: reads past the cutoff not bypassed, as repeats or while the
  // cache had room; streams_tracked (both directions). Thread-safe.
  void visit_counters(const CounterVisitor& visit) const;

 private:
  // One per direction, on its own cache line so readers and writers do not share one.
  struct alignas(64) Direction {
    Direction(uint32_t streams, uint64_t cutoff, uint32_t extents, uint64_t horizon)
        : cutoff(cutoff), streams(streams), table(streams), history(extents, horizon) {}
    mutable std::mutex mu;
    uint64_t cutoff;                 // GUARDED_BY(mu)
    uint32_t streams;                // GUARDED_BY(mu): entries of `table` (0 when disabled)
    StreamTable table;               // GUARDED_BY(mu)
    StreamHistory history;           // GUARDED_BY(mu): reads only (no entries for writes)
    uint64_t observed_bytes = 0;     // GUARDED_BY(mu): the clock of `history`
    uint64_t bypassed_requests = 0;  // GUARDED_BY(mu)
    uint64_t bypassed_bytes = 0;     // GUARDED_BY(mu)
    uint64_t repeated_requests = 0;  // GUARDED_BY(mu)
    uint64_t repeated_bytes = 0;     // GUARDED_BY(mu)
    uint64_t room_requests = 0;      // GUARDED_BY(mu)
    uint64_t room_bytes = 0;         // GUARDED_BY(mu)
  };

  // Whether a read past the cutoff that overlaps `again` is a repeat (repeat_limit_ != 0).
  bool repeats(const StreamHistory::Overlap& again) const;

  uint64_t repeat_horizon_;
  uint64_t repeat_limit_;  // half the cache; 0: every extent read again is a repeat, all of it
  std::atomic<bool> admission_refuses_{true};
  std::atomic<bool> enabled_;
  Direction reads_;
  Direction writes_;
};

}  // namespace tiercache
