#include "bench/workloads/hdtune.h"

#include <algorithm>

namespace tiercache::bench {
namespace {

uint64_t RequestCount(const HdTuneParams& p) { return (p.bytes + p.block - 1) / p.block; }

uint64_t RequestLength(const HdTuneParams& p, uint64_t i) {
  return std::min(p.block, p.bytes - i * p.block);
}

}  // namespace

Trace MakeHdTuneTrace(const HdTuneParams& p) {
  Trace trace;
  trace.name = "hdtune";
  const uint64_t n = RequestCount(p);
  trace.records.reserve(n);
  for (uint64_t i = 0; i < n; ++i) {
    trace.records.push_back({TraceOp::kRead, p.offset + i * p.block, RequestLength(p, i)});
  }
  SetQueueDepth(&trace.records, 1);
  return trace;
}

std::vector<PositionSample> SampleHdTunePositions(const HdTuneParams& p,
                                                  std::span<const Nanos> completed) {
  const uint64_t n = std::min<uint64_t>(RequestCount(p), completed.size());
  const uint64_t positions = std::min<uint64_t>(p.positions, n);
  std::vector<PositionSample> out(positions);
  Nanos previous{0};
  uint64_t i = 0;
  for (uint64_t k = 0; k < positions; ++k) {
    PositionSample& s = out[k];
    s.offset = i * p.block;
    // Requests i with floor(i * positions / n) == k; the last one of the pass closes the last.
    for (; i < n && i * positions / n == k; ++i) s.bytes += RequestLength(p, i);
    s.time = completed[i - 1] - previous;
    previous = completed[i - 1];
    if (s.time > Nanos(0)) s.mb_per_s = static_cast<double>(s.bytes) * 1e3 / s.time.count();
  }
  return out;
}

}  // namespace tiercache::bench
