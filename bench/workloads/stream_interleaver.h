// StreamInterleaver: builds a Trace from per-stream request sequences (one stream = one process
// issuing its requests in order with at most `qd` in flight and think time between them). Streams
// are merged by a nominal timeline (each request taking 200 us + length at 300 MB/s) so that the
// trace order is plausible; the dependencies, not the nominal times, drive the replay.
// Not thread-safe.
#pragma once

#include <string>
#include <vector>

#include "bench/workloads/trace.h"

namespace tiercache::bench {

class StreamInterleaver {
 public:
  // Returns the new stream's id. If `after` names an earlier stream, this stream's first request
  // waits for that stream's last request to complete.
  int add_stream(uint32_t qd, int after = -1);
  void add(int stream, TraceOp op, uint64_t offset, uint64_t length, Nanos think);
  size_t size(int stream) const { return streams_[stream].reqs.size(); }
  Trace build(std::string name) const;

 private:
  struct Req {
    TraceOp op;
    uint64_t offset, length;
    Nanos think;
  };
  struct Stream {
    uint32_t qd;
    int after;
    std::vector<Req> reqs;
  };
  std::vector<Stream> streams_;
};

}  // namespace tiercache::bench
