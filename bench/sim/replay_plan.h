// ReplayPlan: a trace turned into the requests `tiercache sim` submits to the cache, one at a time
// in trace order. Reads and writes are widened to whole 4 KiB blocks (the cache's block size, and
// the referee's access model: a request touches every block overlapping it); discards are narrowed
// to the whole blocks inside them; requests over the cache's 32 MiB limit are split. Also counts
// the block accesses and sizes the core to cover every request. Immutable; thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "bench/workloads/trace.h"

namespace tiercache::bench {

struct SimRequest {
  TraceOp op = TraceOp::kRead;
  uint64_t offset = 0;  // bytes, 4 KiB aligned
  uint64_t length = 0;  // bytes, 4 KiB aligned, <= kMaxRequestBytes; 0 for flushes

  bool operator==(const SimRequest&) const = default;
};

class ReplayPlan {
 public:
  static constexpr uint64_t kBlock = 4096;
  static constexpr uint64_t kMaxRequestBytes = 32ull << 20;  // Device::kDefaultMaxIoBytes

  explicit ReplayPlan(const Trace& trace);

  const std::vector<SimRequest>& requests() const { return requests_; }
  // Trace records (every op; a discard smaller than a block is a request with nothing to submit).
  uint64_t trace_requests() const { return trace_requests_; }
  // 4 KiB blocks touched by reads and writes, one per block per request.
  uint64_t block_accesses() const { return block_accesses_; }
  // Core size: one past the last byte any request touches, at least one block.
  uint64_t core_bytes() const { return core_bytes_; }
  // Longest read or write submitted (the replay buffer's size), at least one block.
  uint64_t max_length() const { return max_length_; }

 private:
  void add(TraceOp op, uint64_t start, uint64_t end);

  std::vector<SimRequest> requests_;
  uint64_t trace_requests_ = 0;
  uint64_t block_accesses_ = 0;
  uint64_t core_bytes_ = kBlock;
  uint64_t max_length_ = kBlock;
};

}  // namespace tiercache::bench
