// Trace: a replayable block request stream. Each record says what to do (op, offset, length) and
// when it may be issued: after the previous record was issued and after record `dep` completed,
// plus `think` (host time between I/Os). This keeps the recorded order and queue depth and lets a
// faster device finish sooner; Replayer (replayer.h) executes it. Plain value; thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cachelib/common/clock.h"
#include "cachelib/common/status.h"

namespace tiercache::bench {

enum class TraceOp : uint8_t { kRead, kWrite, kFlush, kDiscard };
std::string_view TraceOpName(TraceOp op);  // "read", "write", "flush", "discard"

struct TraceRecord {
  TraceOp op = TraceOp::kRead;
  uint64_t offset = 0;  // bytes
  uint64_t length = 0;  // bytes; 0 for flushes
  int64_t dep = -1;     // index of an earlier record that must complete first; -1 for none
  Nanos think{0};       // wait after max(previous record issued, dep completed)

  bool operator==(const TraceRecord&) const = default;
};

struct Trace {
  std::string name;
  std::vector<TraceRecord> records;

  uint64_t bytes_read() const;
  uint64_t bytes_written() const;
  uint64_t count(TraceOp op) const;
  // One past the highest byte any record touches.
  uint64_t end_offset() const;
  // Largest read/write/discard length.
  uint64_t max_length() const;
  // InvalidArgument if a dep does not point to an earlier record, a data op has length 0, or a
  // think time is negative.
  Status validate() const;
};

// Makes a closed loop of depth `qd`: record i waits for record i - qd (the first qd start at once).
void SetQueueDepth(std::vector<TraceRecord>* records, uint32_t qd);

}  // namespace tiercache::bench
