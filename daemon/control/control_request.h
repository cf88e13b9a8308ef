// ControlRequest: one parsed and validated line of the control protocol (docs/cli.md, "Control
// protocol"). Parsing is separate from execution (ControlHandler). Value type; thread-compatible.
#pragma once

#include <optional>
#include <string_view>

#include "cachelib/common/status.h"
#include "cachelib/metadata/metadata_store.h"

namespace tiercache {

enum class ControlCommand { kStatus, kStats, kMode, kFlush, kStop, kDetach, kResetHealth };

struct ControlRequest {
  ControlCommand command = ControlCommand::kStatus;
  // kMode only: the mode to switch to; absent means "report the current mode".
  std::optional<CacheMode> mode;
  // kMode only: when leaving wb, clean all dirty data first.
  bool drain = false;
};

// Parses one request line (without its newline), e.g. {"cmd":"mode","mode":"wb","drain":true}.
// InvalidArgument with a message naming the problem: malformed JSON, not an object, missing or
// unknown "cmd", unknown field, wrong field type, unknown mode.
Result<ControlRequest> ParseControlRequest(std::string_view line);

std::string_view ControlCommandName(ControlCommand command);

}  // namespace tiercache
