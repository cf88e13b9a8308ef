#include "daemon/control/control_request.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

namespace tiercache {
namespace {

using nlohmann::json;

struct CommandSpec {
  std::string_view name;
  ControlCommand command;
};

constexpr std::array<CommandSpec, 9> kCommands = {{
    {"status", ControlCommand::kStatus},
    {"stats", ControlCommand::kStats},
    {"mode", ControlCommand::kMode},
    {"flush", ControlCommand::kFlush},
    {"stop", ControlCommand::kStop},
    {"detach", ControlCommand::kDetach},
    {"reset-health", ControlCommand::kResetHealth},
    {"policy", ControlCommand::kPolicy},
    {"cleaning", ControlCommand::kCleaning},
}};

constexpr std::array<std::string_view, 6> kCleaningFields = {
    "policy", "dirty_target", "dirty_high", "busy_share", "max_dirty_age_ms", "idle_after_ms"};

// Rejects fields a command does not take, so that a typo ("drian") is not silently ignored.
Status CheckFields(const json& request, ControlCommand command) {
  for (const auto& item : request.items()) {
    const std::string& key = item.key();
    if (key == "cmd") continue;
    if (command == ControlCommand::kMode && (key == "mode" || key == "drain")) continue;
    if (command == ControlCommand::kPolicy &&
        (key == "admission" || key == "replacement" || key == "sequential")) {
      continue;
    }
    if (command == ControlCommand::kCleaning &&
        std::find(kCleaningFields.begin(), kCleaningFields.end(), key) != kCleaningFields.end()) {
      continue;
    }
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

// {"enabled":B,"read_cutoff_bytes":N,"write_cutoff_bytes":N,"streams":N}, every field present.
Status ParseSequential(const json& object, SequentialOptions* out) {
  constexpr const char* kNeeds =
      "field 'sequential' must be an object with enabled, read_cutoff_bytes, write_cutoff_bytes "
      "and streams";
  if (!object.is_object() || object.size() != 4) return Status::InvalidArgument(kNeeds);
  auto count = [&](const char* key, uint64_t max, uint64_t* value) {
    if (!object.contains(key) || !object[key].is_number_unsigned()) return false;
    *value = object[key].get<uint64_t>();
    return *value <= max;
  };
  uint64_t streams = 0;
  if (!object.contains("enabled") || !object["enabled"].is_boolean() ||
      !count("read_cutoff_bytes", UINT64_MAX, &out->read_cutoff_bytes) ||
      !count("write_cutoff_bytes", UINT64_MAX, &out->write_cutoff_bytes) ||
      !count("streams", UINT32_MAX, &streams)) {
    return Status::InvalidArgument(kNeeds);
  }
  out->enabled = object["enabled"].get<bool>();
  out->streams = uint32_t(streams);
  return Status::Ok();
}

Status ParsePolicyFields(const json& request, ControlRequest* out) {
  for (const char* key : {"admission", "replacement"}) {
    if (!request.contains(key)) continue;
    if (!request[key].is_string()) {
      return Status::InvalidArgument("field '" + std::string(key) + "' must be a string");
    }
    auto& field = std::string_view(key) == "admission" ? out->policies.admission
                                                       : out->policies.replacement;
    field = request[key].get<std::string>();
  }
  if (request.contains("sequential")) {
    SequentialOptions sequential;
    TC_RETURN_IF_ERROR(ParseSequential(request["sequential"], &sequential));
    out->policies.sequential = sequential;
  }
  return Status::Ok();
}

Status ParseCleaningFields(const json& request, CleaningChange* out) {
  if (request.contains("policy")) {
    if (!request["policy"].is_string()) {
      return Status::InvalidArgument("field 'policy' must be a string");
    }
    out->policy = request["policy"].get<std::string>();
  }
  for (auto [key, field] : {std::pair{"dirty_target", &out->dirty_target},
                            std::pair{"dirty_high", &out->dirty_high},
                            std::pair{"busy_share", &out->busy_share}}) {
    if (!request.contains(key)) continue;
    if (!request[key].is_number()) {
      return Status::InvalidArgument("field '" + std::string(key) + "' must be a number");
    }
    *field = request[key].get<double>();
  }
  for (auto [key, field] : {std::pair{"max_dirty_age_ms", &out->max_dirty_age},
                            std::pair{"idle_after_ms", &out->idle_after}}) {
    if (!request.contains(key)) continue;
    if (!request[key].is_number_unsigned() || request[key].get<uint64_t>() > (1ull << 40)) {
      return Status::InvalidArgument("field '" + std::string(key) +
                                     "' must be a whole number of milliseconds");
    }
    *field = std::chrono::milliseconds(request[key].get<uint64_t>());
  }
  return Status::Ok();
}

}  // namespace

CleaningOptions CleaningChange::apply(CleaningOptions base) const {
  if (dirty_target) base.dirty_target = *dirty_target;
  if (dirty_high) base.dirty_high = *dirty_high;
  if (busy_share) base.busy_share = *busy_share;
  if (max_dirty_age) {
    base.max_dirty_age = *max_dirty_age;
    base.age_margin = CleaningOptions::AgeMarginFor(*max_dirty_age);
  }
  if (idle_after) base.idle_after = *idle_after;
  return base;
}

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
                                   "' (expected status, stats, mode, flush, stop, detach, "
                                   "reset-health, policy or cleaning)");
  }
  TC_RETURN_IF_ERROR(CheckFields(request, out.command));
  if (out.command == ControlCommand::kMode) TC_RETURN_IF_ERROR(ParseModeFields(request, &out));
  if (out.command == ControlCommand::kPolicy) {
    TC_RETURN_IF_ERROR(ParsePolicyFields(request, &out));
  }
  if (out.command == ControlCommand::kCleaning) {
    TC_RETURN_IF_ERROR(ParseCleaningFields(request, &out.cleaning));
  }
  return out;
}

}  // namespace tiercache
