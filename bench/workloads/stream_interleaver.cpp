#include "bench/workloads/stream_interleaver.h"

#include <algorithm>
#include <tuple>

namespace tiercache::bench {
namespace {

Nanos NominalService(uint64_t length) {
  return std::chrono::microseconds(200) + Nanos(static_cast<int64_t>(length * 1e9 / 300e6));
}

}  // namespace

int StreamInterleaver::add_stream(uint32_t qd, int after) {
  streams_.push_back(Stream{std::max<uint32_t>(qd, 1), after, {}});
  return static_cast<int>(streams_.size()) - 1;
}

void StreamInterleaver::add(int stream, TraceOp op, uint64_t offset, uint64_t length,
                            Nanos think) {
  streams_[stream].reqs.push_back(Req{op, offset, length, think});
}

Trace StreamInterleaver::build(std::string name) const {
  // Nominal issue and completion times, stream by stream (an `after` stream is always earlier).
  std::vector<std::vector<Nanos>> issue(streams_.size()), done(streams_.size());
  std::vector<std::tuple<Nanos, int, size_t>> order;
  for (size_t s = 0; s < streams_.size(); ++s) {
    const Stream& st = streams_[s];
    Nanos start{0};
    if (st.after >= 0 && !done[st.after].empty()) start = done[st.after].back();
    for (size_t j = 0; j < st.reqs.size(); ++j) {
      Nanos t = j == 0 ? start : issue[s][j - 1];
      if (j >= st.qd) t = std::max(t, done[s][j - st.qd]);
      t += st.reqs[j].think;
      issue[s].push_back(t);
      done[s].push_back(t + NominalService(st.reqs[j].length));
      order.emplace_back(t, static_cast<int>(s), j);
    }
  }
  std::sort(order.begin(), order.end());
  std::vector<std::vector<int64_t>> global(streams_.size());
  for (size_t s = 0; s < streams_.size(); ++s) global[s].resize(streams_[s].reqs.size());
  for (size_t g = 0; g < order.size(); ++g) {
    global[std::get<1>(order[g])][std::get<2>(order[g])] = static_cast<int64_t>(g);
  }
  Trace trace;
  trace.name = std::move(name);
  for (const auto& [t, s, j] : order) {
    const Stream& st = streams_[s];
    const Req& r = st.reqs[j];
    TraceRecord rec{r.op, r.offset, r.length, -1, r.think};
    if (j >= st.qd) {
      rec.dep = global[s][j - st.qd];
    } else if (j == 0 && st.after >= 0 && !global[st.after].empty()) {
      rec.dep = global[st.after].back();
    }
    trace.records.push_back(rec);
  }
  return trace;
}

}  // namespace tiercache::bench
