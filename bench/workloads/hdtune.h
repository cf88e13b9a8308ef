// HD Tune's read benchmark as a workload: one linear read of the whole test area in 1 MiB requests
// at queue depth 1, and the per-position transfer rate curve HD Tune draws from it (the area cut
// into equal positions, MB/s in each). Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "bench/workloads/trace.h"

namespace tiercache::bench {

struct HdTuneParams {
  uint64_t offset = 0;           // bytes; where the read area starts on the disk
  uint64_t bytes = 1ull << 30;   // bytes read per pass (the whole area); > 0
  uint64_t block = 1ull << 20;   // bytes per request; HD Tune's default 1 MiB; > 0
  uint32_t positions = 64;       // sample points per pass (fewer if the area has fewer requests)
};

// The pass: ceil(bytes / block) reads from `offset` upwards, the last one short if `block` does
// not divide `bytes`, each waiting for the previous one (QD1).
Trace MakeHdTuneTrace(const HdTuneParams& p);

struct PositionSample {
  uint64_t offset = 0;    // bytes from the start of the area to the position's first request
  uint64_t bytes = 0;     // bytes read in the position
  Nanos time{0};          // time spent there: from the previous position's last completion
  double mb_per_s = 0;    // bytes / time / 10^6; 0 if no time passed
};

// Cuts the pass into min(positions, requests) positions of whole requests: request i belongs to
// position floor(i * positions / requests). `completed` holds each request's completion time
// relative to the start of the pass (the Replayer's clock minus its start); at QD1 a position's
// time runs from the previous position's last completion (0 for the first) to its own last one.
// REQUIRES: completed.size() == MakeHdTuneTrace(p).records.size().
std::vector<PositionSample> SampleHdTunePositions(const HdTuneParams& p,
                                                  std::span<const Nanos> completed);

}  // namespace tiercache::bench
