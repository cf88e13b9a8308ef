// SequentialDetector: decides which requests bypass the cache because they belong to a long
// sequential stream (see SequentialOptions). Streams are tracked by position (StreamTable), reads
// and writes apart; the first cutoff bytes of every stream are cached, the rest goes to the core.
// Thread-safe: observe() is called from every event-loop thread. Each direction has its own mutex,
// held for one scan of at most `streams` stream ends; only reconfigure() allocates.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>

#include "policy/common/policy_counters.h"
#include "policy/sequential/sequential_options.h"
#include "policy/sequential/stream_table.h"

namespace tiercache {

class SequentialDetector {
 public:
  // REQUIRES: options.validate().ok().
  explicit SequentialDetector(const SequentialOptions& options);

  // Records the request [offset, offset + length) and returns true when it should bypass the
  // cache: its stream had already spanned at least the direction's cutoff before it arrived.
  // So the request that reaches or crosses the cutoff is still cached; the next one bypasses.
  // Never true when disabled or for length 0. `stream_bytes`, if given, receives the bytes the
  // request's stream spanned before it (0: a new stream, or detection off). Thread-safe.
  bool observe(uint64_t offset, uint64_t length, bool is_write, uint64_t* stream_bytes = nullptr);

  // Applies new options to a running detector (`tiercache policy`). New cutoffs apply to the
  // streams already tracked; a changed stream count (or turning detection on or off) starts with
  // no stream. Bypass counters continue. REQUIRES: options.validate().ok(). Thread-safe.
  void reconfigure(const SequentialOptions& options);

  // Heap bytes held: 20 per stream per direction (0 when disabled). Not per cache slot.
  uint64_t memory_size() const;
  // bypassed_{read,write}_{bytes,requests}, streams_tracked (both directions). Thread-safe.
  void visit_counters(const CounterVisitor& visit) const;

 private:
  // One per direction, on its own cache line so readers and writers do not share one.
  struct alignas(64) Direction {
    Direction(uint32_t streams, uint64_t cutoff)
        : cutoff(cutoff), streams(streams), table(streams) {}
    mutable std::mutex mu;
    uint64_t cutoff;                 // GUARDED_BY(mu)
    uint32_t streams;                // GUARDED_BY(mu): entries of `table` (0 when disabled)
    StreamTable table;               // GUARDED_BY(mu)
    uint64_t bypassed_requests = 0;  // GUARDED_BY(mu)
    uint64_t bypassed_bytes = 0;     // GUARDED_BY(mu)
  };

  std::atomic<bool> enabled_;
  Direction reads_;
  Direction writes_;
};

}  // namespace tiercache
