#include "daemon/control/control_request.h"

#include <array>
#include <string>

#include <nlohmann/json.hpp>

namespace tiercache {
namespace {

using nlohmann::json;

struct CommandSpec {
  std::string_view name;
  ControlCommand command;
};

constexpr std::array<CommandSpec, 7> kCommands = {{
    {"status", ControlCommand::kStatus},
    {"stats", ControlCommand::kStats},
    {"mode", ControlCommand::kMode},
    {"flush", ControlCommand::kFlush},
    {"stop", ControlCommand::kStop},
    {"detach", ControlCommand::kDetach},
    {"reset-health", ControlCommand::kResetHealth},
}};

// Rejects fields a command does not take, so that a typo ("drian") is not silently ignored.
Status CheckFields(const json& request, ControlCommand command) {
  for (const auto& item : request.items()) {
    const std::string& key = item.key();
    if (key == "cmd") continue;
    if (command == ControlCommand::kMode && (key == "mode" || key == "drain")) continue;
    return Status::InvalidArgument("unknown field '" + key + "' for command '" +
                                   std::string(ControlCommandName(command)) + "'");
  }
  return Status::Ok();
}

Status ParseModeFields(const json& request, ControlRequest* out) {
  if (request.contains("mode")) {
    const json& mode = request["mode"];
    if (!mode.is_string()) return Status::InvalidArgument("field 'mode' must be a string");
    Result<CacheMode> parsed = ParseMode(mode.get<std::string>());
    if (!parsed.ok()) {
      return Status::InvalidArgument("unknown mode '" + mode.get<std::string>() +
                                     "' (expected wt, wb, wa or pt)");
    }
    out->mode = *parsed;
  }
  if (request.contains("drain")) {
    const json& drain = request["drain"];
    if (!drain.is_boolean()) return Status::InvalidArgument("field 'drain' must be true or false");
    if (!out->mode) return Status::InvalidArgument("field 'drain' needs field 'mode'");
    out->drain = drain.get<bool>();
  }
  return Status::Ok();
}

}  // namespace

std::string_view ControlCommandName(ControlCommand command) {
  for (const auto& spec : kCommands) {
    if (spec.command == command) return spec.name;
  }
  return "unknown";
}

Result<ControlRequest> ParseControlRequest(std::string_view line) {
  json request = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (request.is_discarded()) {
    return Status::InvalidArgument("malformed JSON (expected one JSON object per line)");
  }
  if (!request.is_object()) return Status::InvalidArgument("request must be a JSON object");
  if (!request.contains("cmd")) return Status::InvalidArgument("missing field 'cmd'");
  const json& cmd = request["cmd"];
  if (!cmd.is_string()) return Status::InvalidArgument("field 'cmd' must be a string");
  const std::string& name = cmd.get_ref<const std::string&>();
  ControlRequest out;
  bool known = false;
  for (const auto& spec : kCommands) {
    if (spec.name == name) {
      out.command = spec.command;
      known = true;
    }
  }
  if (!known) {
    return Status::InvalidArgument("unknown command '" + name +
                                   "' (expected status, stats, mode, flush, stop, detach or reset-health)");
  }
  TC_RETURN_IF_ERROR(CheckFields(request, out.command));
  if (out.command == ControlCommand::kMode) TC_RETURN_IF_ERROR(ParseModeFields(request, &out));
  return out;
}

}  // namespace tiercache
