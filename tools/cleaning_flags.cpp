#include "tools/cleaning_flags.h"

#include <CLI/CLI.hpp>

#include <cmath>
#include <utility>
#include <vector>

#include "daemon/tiercached/daemon_config.h"
#include "daemon/tiercached/daemon_option.h"

namespace tiercache {
namespace {

// (tiercached option name, value as typed) for each flag, in CleaningSettingsToJson's order.
std::vector<std::pair<const char*, const std::string*>> Given(const CleaningFlags& f) {
  std::vector<std::pair<const char*, const std::string*>> given;
  for (auto [name, text] : {std::pair{"cleaning", &f.policy},
                            std::pair{"dirty-target", &f.dirty_target},
                            std::pair{"dirty-high", &f.dirty_high},
                            std::pair{"max-dirty-age", &f.max_dirty_age},
                            std::pair{"busy-share", &f.busy_share},
                            std::pair{"idle-after", &f.idle_after}}) {
    if (!text->empty()) given.emplace_back(name, text);
  }
  return given;
}

// The flag's name: `--policy` is tiercached's `--cleaning`.
std::string FlagName(const char* option) {
  return std::string("--") + (std::string_view(option) == "cleaning" ? "policy" : option);
}

Status ApplyAll(const CleaningFlags& f, DaemonConfig* config) {
  for (auto [name, text] : Given(f)) {
    Status s = ApplyDaemonOption(*FindDaemonOption(name), *text, config);
    if (!s.ok()) return Status::InvalidArgument(FlagName(name) + ": " + s.message());
  }
  return Status::Ok();
}

double Number(const ControlJson& j, const char* key, double fallback) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}

}  // namespace

void CleaningFlags::add_to(CLI::App* app) {
  app->add_option("--policy", policy, "Cleaning policy: target or nop (tiercached --cleaning)");
  app->add_option("--dirty-target", dirty_target,
                  "Clean while clients are active above this share of the cache dirty")
      ->type_name("SHARE");
  app->add_option("--dirty-high", dirty_high,
                  "Clean back to back above this share of the cache dirty")
      ->type_name("SHARE");
  app->add_option("--max-dirty-age", max_dirty_age,
                  "Written data stays dirty at most about SECONDS")
      ->type_name("SECONDS");
  app->add_option("--busy-share", busy_share,
                  "Share of the time cleaning may take while clients are active")
      ->type_name("SHARE");
  app->add_option("--idle-after", idle_after,
                  "SECONDS without a client request after which the cache cleans all it holds")
      ->type_name("SECONDS");
}

bool CleaningFlags::any() const { return !Given(*this).empty(); }

Status CleaningFlags::check() const {
  DaemonConfig config;
  return ApplyAll(*this, &config);
}

Result<ControlJson> CleaningFlags::request_over(const ControlJson& current) const {
  DaemonConfig config;
  config.cleaning = current.value("policy", config.cleaning);
  config.dirty_target = Number(current, "dirty_target", config.dirty_target);
  config.dirty_high = Number(current, "dirty_high", config.dirty_high);
  config.max_dirty_age_s = Number(current, "max_dirty_age_ms", config.max_dirty_age_s * 1e3) / 1e3;
  config.busy_share = Number(current, "busy_share", config.busy_share);
  config.idle_after_s = Number(current, "idle_after_ms", config.idle_after_s * 1e3) / 1e3;
  TC_RETURN_IF_ERROR(ApplyAll(*this, &config));
  TC_RETURN_IF_ERROR(CleaningOptionsFor(config).status());
  ControlJson request = ControlJson::object();
  request["cmd"] = "cleaning";
  auto ms = [](double seconds) { return uint64_t(std::llround(seconds * 1e3)); };
  if (!policy.empty()) request["policy"] = config.cleaning;
  if (!dirty_target.empty()) request["dirty_target"] = config.dirty_target;
  if (!dirty_high.empty()) request["dirty_high"] = config.dirty_high;
  if (!max_dirty_age.empty()) request["max_dirty_age_ms"] = ms(config.max_dirty_age_s);
  if (!busy_share.empty()) request["busy_share"] = config.busy_share;
  if (!idle_after.empty()) request["idle_after_ms"] = ms(config.idle_after_s);
  return request;
}

}  // namespace tiercache
