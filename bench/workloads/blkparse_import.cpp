// blkparse text output -> Trace (see trace_import.h).
#include <algorithm>
#include <deque>
#include <map>
#include <tuple>

#include "bench/workloads/text_fields.h"
#include "bench/workloads/trace_import.h"

namespace tiercache::bench {
namespace {

constexpr uint64_t kSector = 512;

struct Event {
  int64_t time_ns;
  char action;  // 'Q', 'D' or 'C'
  TraceOp op;
  uint64_t sector, sectors;
};

// The request kind from RWBS, or nullopt for events that are not I/O (e.g. "N").
std::optional<TraceOp> OpFromRwbs(std::string_view rwbs, uint64_t sectors) {
  if (sectors == 0) {
    if (rwbs.find('F') != std::string_view::npos) return TraceOp::kFlush;
    return std::nullopt;
  }
  if (rwbs.find('D') != std::string_view::npos) return TraceOp::kDiscard;
  if (rwbs.find('W') != std::string_view::npos) return TraceOp::kWrite;
  if (rwbs.find('R') != std::string_view::npos) return TraceOp::kRead;
  return std::nullopt;
}

// Parses one event line; nullopt for headers, summaries, other actions and other devices.
std::optional<Event> ParseLine(std::string_view line, const std::string& device) {
  auto w = SplitWords(line);
  if (w.size() < 7 || w[0].find(',') == std::string_view::npos) return std::nullopt;
  if (!device.empty() && w[0] != device) return std::nullopt;
  if (w[5].size() != 1 || std::string_view("QDC").find(w[5][0]) == std::string_view::npos) {
    return std::nullopt;
  }
  auto t = ParseSecondsNs(w[3]);
  if (!t) return std::nullopt;
  uint64_t sector = 0, sectors = 0;
  if (w.size() >= 10 && w[8] == "+") {
    auto s = ParseU64(w[7]);
    auto n = ParseU64(w[9]);
    if (!s || !n) return std::nullopt;
    sector = *s;
    sectors = *n;
  }
  auto op = OpFromRwbs(w[6], sectors);
  if (!op) return std::nullopt;
  return Event{*t, w[5][0], *op, sector, sectors};
}

}  // namespace

Result<Trace> ParseBlkparse(std::string_view text, std::string name,
                            const ImportOptions& options) {
  std::vector<Event> events;
  bool have_dispatch = false;
  const auto lines = SplitLines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (auto e = ParseLine(lines[i], options.device)) {
      // Checked in sectors: the byte offset of a sector past kMaxTraceEnd could wrap.
      constexpr uint64_t kMaxEndSector = kMaxTraceEnd / kSector;
      if (e->sector > kMaxEndSector || e->sectors > kMaxEndSector - e->sector) {
        return Status::InvalidArgument("blkparse line " + std::to_string(i + 1) + ": sector " +
                                       std::to_string(e->sector) + " + " +
                                       std::to_string(e->sectors) + " ends past 64 PiB");
      }
      have_dispatch |= e->action == 'D';
      events.push_back(*e);
    }
  }
  std::stable_sort(events.begin(), events.end(),
                   [](const Event& a, const Event& b) { return a.time_ns < b.time_ns; });
  const char issue = have_dispatch ? 'D' : 'Q';
  using Key = std::tuple<TraceOp, uint64_t, uint64_t>;
  std::map<Key, std::deque<size_t>> pending;
  std::vector<TimedRequest> requests;
  for (const Event& e : events) {
    const Key key{e.op, e.sector, e.sectors};
    if (e.action == issue) {
      pending[key].push_back(requests.size());
      requests.push_back(TimedRequest{e.op, e.sector * kSector, e.sectors * kSector,
                                      Nanos(e.time_ns), std::nullopt});
    } else if (e.action == 'C') {
      auto it = pending.find(key);
      if (it == pending.end() || it->second.empty()) continue;  // issued before the trace began
      requests[it->second.front()].complete = Nanos(e.time_ns);
      it->second.pop_front();
    }
  }
  if (requests.empty()) return Status::InvalidArgument("no block requests found in blkparse text");
  return ToTrace(std::move(name), std::move(requests), options);
}

}  // namespace tiercache::bench
