// The real block traces shipped in bench/traces/, recorded with `tiercached --record` (fio iolog
// v3) by bench/traces/record-realapp.sh and compiled into the binary, so that tiercache-bench
// replays them without the source tree. How they were made: docs/bench.md. Immutable; thread-safe.
#pragma once

#include <string_view>
#include <vector>

#include "bench/workloads/trace.h"

namespace tiercache::bench {

struct RecordedTrace {
  std::string_view name;         // the workload name: realapp, realapp-install
  std::string_view description;  // one line for reports
  std::string_view iolog;        // the shipped file's text
};

// Every shipped trace, in catalog order.
const std::vector<RecordedTrace>& RecordedTraces();

// Imports the shipped trace `name` (fio importer: recorded order, queue depth 1).
// NotFound for other names.
Result<Trace> LoadRecordedTrace(std::string_view name);

}  // namespace tiercache::bench
