// ControlRequest: one parsed and validated line of the control protocol (docs/cli.md, "Control
// protocol"). Parsing is separate from execution (ControlHandler). Value type; thread-compatible.
#pragma once

#include <optional>
#include <string_view>

#include "cachelib/common/status.h"
#include "cachelib/metadata/metadata_store.h"
#include "policy/policy_options.h"

namespace tiercache {

enum class ControlCommand {
  kStatus, kStats, kMode, kFlush, kStop, kDetach, kResetHealth, kPolicy
};

struct ControlRequest {
  ControlCommand command = ControlCommand::kStatus;
  // kMode only: the mode to switch to; absent means "report the current mode".
  std::optional<CacheMode> mode;
  // kMode only: when leaving wb, clean all dirty data first.
  bool drain = false;
  // kPolicy only: the policies to change, each over the one in force; none set means "report the
  // policies in use". "sequential" is the whole object as status shows it.
  PolicyOverrides policies;
  bool changes_policies() const {
    return policies.admission || policies.replacement || policies.sequential;
  }
};

// Parses one request line (without its newline), e.g. {"cmd":"mode","mode":"wb","drain":true}.
// InvalidArgument with a message naming the problem: malformed JSON, not an object, missing or
// unknown "cmd", unknown field, wrong field type, unknown mode, incomplete "sequential" object.
// Policy names are checked when the change is applied (PolicyOptions::validate).
Result<ControlRequest> ParseControlRequest(std::string_view line);

std::string_view ControlCommandName(ControlCommand command);

}  // namespace tiercache
