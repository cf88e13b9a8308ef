// fio iolog v2/v3 -> Trace (see trace_import.h).
#include "bench/workloads/text_fields.h"
#include "bench/workloads/trace_import.h"

namespace tiercache::bench {
namespace {

std::optional<TraceOp> OpFromAction(std::string_view a) {
  if (a == "read") return TraceOp::kRead;
  if (a == "write") return TraceOp::kWrite;
  if (a == "trim") return TraceOp::kDiscard;
  if (a == "sync" || a == "datasync") return TraceOp::kFlush;
  return std::nullopt;
}

}  // namespace

Result<Trace> ParseFioIolog(std::string_view text, std::string name,
                            const ImportOptions& options) {
  auto lines = SplitLines(text);
  if (lines.empty()) return Status::InvalidArgument("empty fio iolog");
  int version = 0;
  if (lines[0] == "fio version 2 iolog") version = 2;
  if (lines[0] == "fio version 3 iolog") version = 3;
  if (version == 0) return Status::InvalidArgument("not a fio version 2 or 3 iolog");
  Trace trace;
  trace.name = std::move(name);
  Nanos pending_wait{0};
  for (size_t i = 1; i < lines.size(); ++i) {
    auto w = SplitWords(lines[i]);
    if (version == 3 && !w.empty()) w.erase(w.begin());  // the timestamp
    if (w.empty()) continue;
    const std::string where = "fio iolog line " + std::to_string(i + 1);
    if (w.size() != 2 && w.size() != 4) {
      return Status::InvalidArgument(where + ": expected FILE ACTION [OFFSET LENGTH]");
    }
    if (!options.device.empty() && w[0] != options.device) continue;
    if (w.size() == 2) {
      // add / open / close; `tiercached --record` writes flushes without offset and length.
      if (w[1] != "sync" && w[1] != "datasync") continue;
      w.push_back("0");
      w.push_back("0");
    }
    auto offset = ParseU64(w[2]);
    auto length = ParseU64(w[3]);
    if (!offset || !length) {
      return Status::InvalidArgument(where + ": bad number");
    }
    if (w[1] == "wait" && version == 2) {
      pending_wait += std::chrono::microseconds(*offset);
      continue;
    }
    auto op = OpFromAction(w[1]);
    if (!op) {
      return Status::InvalidArgument(where + ": unknown action '" + std::string(w[1]) + "'");
    }
    if (*op != TraceOp::kFlush) TC_RETURN_IF_ERROR(CheckTraceExtent(where, *offset, *length));
    TraceRecord r;
    r.op = *op;
    r.offset = *op == TraceOp::kFlush ? 0 : *offset;
    r.length = *op == TraceOp::kFlush ? 0 : *length;
    r.think = std::min(pending_wait, options.max_think);
    pending_wait = Nanos(0);
    trace.records.push_back(r);
  }
  if (trace.records.empty()) return Status::InvalidArgument("no I/O actions in fio iolog");
  SetQueueDepth(&trace.records, std::max<uint32_t>(1, options.qd_without_completions));
  return trace;
}

}  // namespace tiercache::bench
