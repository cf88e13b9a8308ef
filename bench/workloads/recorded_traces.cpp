#include "bench/workloads/recorded_traces.h"

#include <string>

#include "bench/workloads/trace_import.h"

namespace tiercache::bench {

extern const std::string_view kRealAppIolog;         // bench/traces/realapp.iolog
extern const std::string_view kRealAppInstallIolog;  // bench/traces/realapp-install.iolog

const std::vector<RecordedTrace>& RecordedTraces() {
  static const std::vector<RecordedTrace> traces = {
      {"realapp",
       "recorded: three Python apps started from a cold ext4 volume (bench/traces/realapp.iolog)",
       kRealAppIolog},
      {"realapp-install",
       "recorded: mkfs.ext4 and copying a Python installation in (bench/traces/"
       "realapp-install.iolog)",
       kRealAppInstallIolog},
  };
  return traces;
}

Result<Trace> LoadRecordedTrace(std::string_view name) {
  for (const RecordedTrace& t : RecordedTraces()) {
    if (t.name == name) return ParseFioIolog(t.iolog, std::string(t.name));
  }
  return Status::NotFound("no recorded trace '" + std::string(name) + "'");
}

}  // namespace tiercache::bench
