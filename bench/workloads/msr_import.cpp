// MSR Cambridge CSV -> Trace (see trace_import.h).
#include <algorithm>
#include <cctype>

#include "bench/workloads/text_fields.h"
#include "bench/workloads/trace_import.h"

namespace tiercache::bench {
namespace {

constexpr int64_t kTickNs = 100;  // Windows filetime unit

bool EqualsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

}  // namespace

Result<Trace> ParseMsrCsv(std::string_view text, std::string name, const ImportOptions& options) {
  std::vector<TimedRequest> requests;
  std::vector<uint64_t> stamps;  // each request's Timestamp, made relative to the earliest below
  auto lines = SplitLines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    auto f = SplitChar(lines[i], ',');
    const std::string where = "MSR CSV line " + std::to_string(i + 1);
    if (f.size() != 7) return Status::InvalidArgument(where + ": expected 7 fields");
    auto ts = ParseU64(f[0]);
    auto offset = ParseU64(f[4]);
    auto size = ParseU64(f[5]);
    auto response = ParseU64(f[6]);
    if (i == 0 && !ts) continue;  // a header line ("Timestamp,...")
    if (!ts || !offset || !size || !response) {
      return Status::InvalidArgument(where + ": bad number");
    }
    TC_RETURN_IF_ERROR(CheckTraceExtent(where, *offset, *size));
    if (!options.device.empty() && f[2] != options.device) continue;
    TraceOp op;
    if (EqualsNoCase(f[3], "read")) {
      op = TraceOp::kRead;
    } else if (EqualsNoCase(f[3], "write")) {
      op = TraceOp::kWrite;
    } else {
      return Status::InvalidArgument(where + ": Type must be Read or Write");
    }
    const Nanos response_time(static_cast<int64_t>(*response) * kTickNs);
    requests.push_back(TimedRequest{op, *offset, *size, Nanos(0), response_time});
    stamps.push_back(*ts);
  }
  if (requests.empty()) return Status::InvalidArgument("no requests in MSR CSV");
  // Times count from the earliest request, wherever it is in the file (ToTrace sorts by them).
  const uint64_t first = *std::min_element(stamps.begin(), stamps.end());
  for (size_t i = 0; i < requests.size(); ++i) {
    requests[i].issue = Nanos(static_cast<int64_t>(stamps[i] - first) * kTickNs);
    *requests[i].complete += requests[i].issue;
  }
  return ToTrace(std::move(name), std::move(requests), options);
}

}  // namespace tiercache::bench
