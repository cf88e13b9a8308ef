// TimedRequest and ToTrace(): turning recorded issue/completion times (blkparse, MSR Cambridge,
// fio iolog v3) into a Trace's dependency form. Each request depends on the request that completed
// last before it was issued, and thinks for the gap between that completion (or the previous issue,
// if later) and its own issue: replayed on the recording device it reproduces the recorded timing
// and queue depth; on a faster device the dependent requests move earlier. A source without any
// completion times is chained at a fixed queue depth with no think time instead. Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bench/workloads/trace.h"

namespace tiercache::bench {

struct TimedRequest {
  TraceOp op = TraceOp::kRead;
  uint64_t offset = 0, length = 0;
  Nanos issue{0};
  std::optional<Nanos> complete;  // absent when the source has no completion times

  bool operator==(const TimedRequest&) const = default;
};

struct TimedImportOptions {
  // Queue depth used when completion times are missing. Must be >= 1.
  uint32_t qd_without_completions = 1;
  // Think times are capped at this (idle gaps in long traces are not I/O). Default: 1 s.
  Nanos max_think = std::chrono::seconds(1);
  // Keep think times from timestamps; false replays as fast as dependencies allow.
  bool keep_think = true;
};

// Sorts by issue time (stable) and derives deps and think times.
Trace ToTrace(std::string name, std::vector<TimedRequest> requests,
              const TimedImportOptions& options = {});

}  // namespace tiercache::bench
