#include "bench/workloads/trace.h"

#include <algorithm>

namespace tiercache::bench {

std::string_view TraceOpName(TraceOp op) {
  switch (op) {
    case TraceOp::kRead: return "read";
    case TraceOp::kWrite: return "write";
    case TraceOp::kFlush: return "flush";
    case TraceOp::kDiscard: return "discard";
  }
  return "?";
}

uint64_t Trace::bytes_read() const {
  uint64_t n = 0;
  for (const auto& r : records) n += r.op == TraceOp::kRead ? r.length : 0;
  return n;
}

uint64_t Trace::bytes_written() const {
  uint64_t n = 0;
  for (const auto& r : records) n += r.op == TraceOp::kWrite ? r.length : 0;
  return n;
}

uint64_t Trace::count(TraceOp op) const {
  return std::count_if(records.begin(), records.end(),
                       [op](const TraceRecord& r) { return r.op == op; });
}

uint64_t Trace::end_offset() const {
  uint64_t end = 0;
  for (const auto& r : records) end = std::max(end, r.offset + r.length);
  return end;
}

uint64_t Trace::max_length() const {
  uint64_t m = 0;
  for (const auto& r : records) m = std::max(m, r.length);
  return m;
}

Status Trace::validate() const {
  for (size_t i = 0; i < records.size(); ++i) {
    const TraceRecord& r = records[i];
    const std::string where = "trace '" + name + "' record " + std::to_string(i);
    if (r.dep >= static_cast<int64_t>(i) || r.dep < -1) {
      return Status::InvalidArgument(where + ": dep must name an earlier record");
    }
    if (r.op != TraceOp::kFlush && r.length == 0) {
      return Status::InvalidArgument(where + ": zero-length " + std::string(TraceOpName(r.op)));
    }
    if (r.think < Nanos(0)) return Status::InvalidArgument(where + ": negative think time");
  }
  return Status::Ok();
}

void SetQueueDepth(std::vector<TraceRecord>* records, uint32_t qd) {
  for (size_t i = 0; i < records->size(); ++i) {
    (*records)[i].dep = i >= qd ? static_cast<int64_t>(i - qd) : -1;
  }
}

}  // namespace tiercache::bench
