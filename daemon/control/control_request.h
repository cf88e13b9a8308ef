// ControlRequest: one parsed and validated line of the control protocol (docs/cli.md, "Control
// protocol"). Parsing is separate from execution (ControlHandler). Value type; thread-compatible.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "cachelib/common/status.h"
#include "cachelib/metadata/metadata_store.h"
#include "policy/cleaning/cleaning_options.h"
#include "policy/policy_options.h"

namespace tiercache {

enum class ControlCommand {
  kStatus, kStats, kMode, kFlush, kStop, kDetach, kResetHealth, kPolicy, kCleaning
};

// kCleaning: the cleaning policy and knobs to change, each over the one in force.
struct CleaningChange {
  std::optional<std::string> policy;
  std::optional<double> dirty_target, dirty_high, busy_share;
  std::optional<Nanos> max_dirty_age, idle_after;
  bool any() const {
    return policy || dirty_target || dirty_high || busy_share || max_dirty_age || idle_after;
  }
  // `base` with every set field replaced (the age margin follows a new max_dirty_age).
  CleaningOptions apply(CleaningOptions base) const;
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
  // kCleaning only: none set means "report the cleaning in use".
  CleaningChange cleaning;
};

// Parses one request line (without its newline), e.g. {"cmd":"mode","mode":"wb","drain":true}.
// InvalidArgument with a message naming the problem: malformed JSON, not an object, missing or
// unknown "cmd", unknown field, wrong field type, unknown mode, incomplete "sequential" object.
// Policy names and cleaning knobs are checked when the change is applied (PolicyOptions::validate,
// CleaningOptions::validate).
Result<ControlRequest> ParseControlRequest(std::string_view line);

std::string_view ControlCommandName(ControlCommand command);

}  // namespace tiercache
