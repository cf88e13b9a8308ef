#include "daemon/tiercached/daemon_config.h"

#include <CLI/CLI.hpp>

#include <memory>

#include "daemon/control/control_paths.h"
#include "daemon/metrics/metrics_http.h"
#include "daemon/tiercached/config_file.h"
#include "daemon/tiercached/daemon_option.h"

namespace tiercache {
namespace {

constexpr const char* kVersion = "tiercached " TIERCACHE_VERSION;  // project() in CMakeLists.txt

const char* TypeName(OptionKind kind) {
  switch (kind) {
    case OptionKind::kString: return "TEXT";
    case OptionKind::kFlag: return "";
    case OptionKind::kUnsigned: return "UINT";
    case OptionKind::kInt: return "INT";
    case OptionKind::kDouble: return "FLOAT";
    case OptionKind::kSize: return "SIZE";
  }
  return "";
}

// Every option of the table as a CLI11 option storing the text as typed: the table's parser
// checks it afterwards, the same way it checks a config file's values.
struct CommandLine {
  explicit CommandLine(CLI::App& app) : flags(new bool[DaemonOptions().size()]()) {
    const std::vector<DaemonOption>& options = DaemonOptions();
    texts.resize(options.size());
    for (size_t i = 0; i < options.size(); ++i) {
      const DaemonOption& o = options[i];
      std::string names = "--" + o.name + (o.short_flag.empty() ? "" : "," + o.short_flag);
      given.push_back(o.kind() == OptionKind::kFlag
                          ? app.add_flag(names, flags[i], o.help)
                          : app.add_option(names, texts[i], o.help)->type_name(TypeName(o.kind())));
    }
  }
  // Stores each option given over `config`.
  Status ApplyTo(DaemonConfig* config) const {
    const std::vector<DaemonOption>& options = DaemonOptions();
    for (size_t i = 0; i < options.size(); ++i) {
      if (given[i]->count() == 0) continue;
      const std::string text =
          options[i].kind() == OptionKind::kFlag ? (flags[i] ? "true" : "false") : texts[i];
      Status s = ApplyDaemonOption(options[i], text, config);
      if (!s.ok()) return Status::InvalidArgument("--" + options[i].name + ": " + s.message());
    }
    return Status::Ok();
  }

  std::vector<std::string> texts;
  std::unique_ptr<bool[]> flags;
  std::vector<CLI::Option*> given;
};

std::string Lines(const std::vector<std::string>& lines) {
  std::string joined;
  for (const std::string& line : lines) joined += (joined.empty() ? "" : "\n") + line;
  return joined;
}

}  // namespace

PolicyOverrides PolicyOverridesFor(const DaemonConfig& c, const SequentialOptions& recorded) {
  PolicyOverrides o;
  if (!c.admission.empty()) o.admission = c.admission;
  if (!c.replacement.empty()) o.replacement = c.replacement;
  if (c.seq_cutoff_bytes) {
    SequentialOptions& seq = o.sequential.emplace(recorded);
    seq.enabled = *c.seq_cutoff_bytes > 0;
    seq.read_cutoff_bytes = *c.seq_cutoff_bytes;
    seq.write_cutoff_bytes = *c.seq_cutoff_bytes;
  }
  return o;
}

Result<CleaningOptions> CleaningOptionsFor(const DaemonConfig& c) {
  // Each knob was range-checked alone; the one rule between two is checked here, once all are
  // set, so a config file may list them in any order.
  if (!(c.dirty_target < c.dirty_high)) {
    return Status::InvalidArgument("dirty-target " + FormatOptionNumber(c.dirty_target) +
                                   " must be below dirty-high " +
                                   FormatOptionNumber(c.dirty_high));
  }
  auto nanos = [](double seconds) {
    return std::chrono::duration_cast<Nanos>(std::chrono::duration<double>(seconds));
  };
  CleaningOptions o;
  o.dirty_target = c.dirty_target;
  o.dirty_high = c.dirty_high;
  o.max_dirty_age = nanos(c.max_dirty_age_s);
  o.age_margin = CleaningOptions::AgeMarginFor(o.max_dirty_age);
  o.busy_share = c.busy_share;
  o.idle_after = nanos(c.idle_after_s);
  TC_RETURN_IF_ERROR(o.validate());
  return o;
}

Result<DaemonConfig> ParseDaemonConfig(int argc, char** argv) {
  CLI::App app{"tiercached: serve an SSD-cached HDD as one block device over NBD"};
  std::string config_file;
  app.add_option("--config", config_file,
                 "read options from FILE (TOML: `threads = 4`, one key per long option); the "
                 "flags given here override it")
      ->type_name("FILE");
  CommandLine command_line(app);
  app.set_version_flag("--version", kVersion);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    std::printf("%s", app.help().c_str());
    return Status::NotFound("");
  } catch (const CLI::CallForVersion& e) {
    std::printf("%s\n", kVersion);
    return Status::NotFound("");
  } catch (const CLI::ParseError& e) {
    return Status::InvalidArgument(e.what());
  }
  DaemonConfig c;
  if (!config_file.empty()) {
    std::vector<std::string> errors = LoadConfigFile(config_file, &c);
    if (!errors.empty()) return Status::InvalidArgument(Lines(errors));
  }
  TC_RETURN_IF_ERROR(command_line.ApplyTo(&c));
  return FinishDaemonConfig(std::move(c));
}

Result<DaemonConfig> FinishDaemonConfig(DaemonConfig c) {
  if (c.cache_path.empty()) {
    return Status::InvalidArgument("--cache is required (or `cache` in the --config file)");
  }
  c.log_level = ParseLogLevel(c.log_level_name).value_or(LogLevel::kInfo);  // checked already
  if (Result<IoBackend> backend = ParseIoBackend(c.io_backend_name); backend.ok()) {
    c.io_backend = *backend;  // (checked by the option table)
  }
  if (!c.metrics_listen.empty()) {
    Result<std::string> address = MetricsListenAddress(c.metrics_listen);
    if (!address.ok()) return address.status();
    c.metrics_listen = *address;
  }
  if (Result<CleaningOptions> cleaning = CleaningOptionsFor(c); !cleaning.ok()) {
    return cleaning.status();
  }
  if (c.ublk_recover >= 0) c.ublk = true;
  if (c.ublk) c.commit_acks = true;
  if (c.socket_path.empty()) c.socket_path = DefaultExportPath(c.cache_path);
  if (c.control_path.empty()) c.control_path = DefaultControlPath(c.cache_path);
  return c;
}

}  // namespace tiercache
