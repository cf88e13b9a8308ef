#include "bench/sim/replay_plan.h"

#include <algorithm>

namespace tiercache::bench {

ReplayPlan::ReplayPlan(const Trace& trace) {
  requests_.reserve(trace.records.size());
  for (const TraceRecord& r : trace.records) {
    ++trace_requests_;
    const uint64_t end = r.offset + r.length;
    switch (r.op) {
      case TraceOp::kFlush:
        requests_.push_back({TraceOp::kFlush, 0, 0});
        break;
      case TraceOp::kDiscard:
        // Only whole blocks: dropping the rest of a partly discarded block would lose data.
        add(r.op, (r.offset + kBlock - 1) / kBlock * kBlock, end / kBlock * kBlock);
        break;
      case TraceOp::kRead:
      case TraceOp::kWrite: {
        const uint64_t start = r.offset / kBlock * kBlock;
        const uint64_t stop = (end + kBlock - 1) / kBlock * kBlock;
        block_accesses_ += (stop - start) / kBlock;
        add(r.op, start, stop);
        break;
      }
    }
  }
}

void ReplayPlan::add(TraceOp op, uint64_t start, uint64_t end) {
  if (end <= start) return;
  core_bytes_ = std::max(core_bytes_, end);
  for (uint64_t at = start; at < end; at += kMaxRequestBytes) {
    const uint64_t length = std::min(kMaxRequestBytes, end - at);
    if (op != TraceOp::kDiscard) max_length_ = std::max(max_length_, length);
    requests_.push_back({op, at, length});
  }
}

}  // namespace tiercache::bench
