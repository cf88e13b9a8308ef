// ReadRun: the read path for a run of a request's segments in one shard (Request::start_runs):
// one pass under the shard mutex locks and looks up every segment, and each stretch of whole hits
// is read with one SSD operation per SSD-contiguous part and unlocked in one pass. Loop-bound, as
// every I/O path; segments that must wait for their lock or need the core go one by one
// (read_path.cpp).
#pragma once

#include <span>

#include "cachelib/engine/request.h"

namespace tiercache {

// Reads the segments of `run` (consecutive, of one shard, at most Request::kMaxRun), each under
// its core line's shared lock, as ReadLocked would one by one: same lock order, policy touches,
// counters and SSD error handling; every segment ends with req.segment(s)_done().
void ReadRun(Request& req, std::span<const Segment> run);

}  // namespace tiercache
