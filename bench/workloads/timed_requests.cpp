#include "bench/workloads/timed_requests.h"

#include <algorithm>
#include <queue>

namespace tiercache::bench {
namespace {

using Completion = std::pair<Nanos, size_t>;  // (completion time, record index)

TraceRecord Record(const TimedRequest& r) {
  TraceRecord out;
  out.op = r.op;
  out.offset = r.offset;
  out.length = r.op == TraceOp::kFlush ? 0 : r.length;
  return out;
}

Nanos ClampThink(Nanos think, const TimedImportOptions& o) {
  if (!o.keep_think || think < Nanos(0)) return Nanos(0);
  return std::min(think, o.max_think);
}

}  // namespace

Trace ToTrace(std::string name, std::vector<TimedRequest> requests,
              const TimedImportOptions& options) {
  std::stable_sort(requests.begin(), requests.end(),
                   [](const TimedRequest& a, const TimedRequest& b) { return a.issue < b.issue; });
  Trace trace;
  trace.name = std::move(name);
  trace.records.reserve(requests.size());
  // Outstanding requests by completion time; `last` is the latest completion seen so far.
  std::priority_queue<Completion, std::vector<Completion>, std::greater<>> outstanding;
  std::optional<Completion> last;
  const uint32_t qd = std::max<uint32_t>(1, options.qd_without_completions);
  const bool timed = std::any_of(requests.begin(), requests.end(),
                                 [](const TimedRequest& r) { return r.complete.has_value(); });
  for (size_t i = 0; i < requests.size(); ++i) {
    const TimedRequest& r = requests[i];
    TraceRecord rec = Record(r);
    if (!timed) {
      // Without completions the gaps mix service and host time: chain at a fixed depth, no think.
      if (i >= qd) rec.dep = static_cast<int64_t>(i - qd);
      trace.records.push_back(rec);
      continue;
    }
    while (!outstanding.empty() && outstanding.top().first <= r.issue) {
      last = outstanding.top();  // popped in completion order: the latest so far
      outstanding.pop();
    }
    Nanos base = i > 0 ? requests[i - 1].issue : r.issue;
    if (last) {
      rec.dep = static_cast<int64_t>(last->second);
      base = std::max(base, last->first);
    }
    // A request whose completion was not recorded (the trace ended) never becomes a dependency.
    if (r.complete) outstanding.push({*r.complete, i});
    if (i > 0) rec.think = ClampThink(r.issue - base, options);
    trace.records.push_back(rec);
  }
  return trace;
}

}  // namespace tiercache::bench
