#include "tools/cli_options.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <ostream>
#include <sstream>
#include <string_view>

#include "cachelib/common/size_parser.h"
#include "daemon/control/control_json.h"
#include "tools/command_io.h"
#include "tools/exit_codes.h"
#include "tools/policy_flags.h"

namespace tiercache {
namespace {

constexpr const char* kFooter =
    "Exit codes: 0 ok, 1 operation failed, 2 usage error, 3 cannot connect to tiercached.\n"
    "See tiercache(1) and docs/cli.md.";

// Strings as typed; validated after CLI11 is done.
struct RawOptions {
  std::string line_size = "4K";
  std::string create_mode = "wt";
  PolicyFlags create_policies;
  std::string new_mode;
};

const std::vector<std::string> kModes = {"wt", "wb", "wa", "pt"};

void AddCommonOptions(CLI::App* verb, CliOptions* o) {
  verb->add_option("--control", o->control,
                   "Control socket of tiercached (default: <run dir>/<cache name>.ctl, or the "
                   "only socket in the run directory)");
  verb->add_flag("--json", o->json, "Print JSON lines for scripts instead of text");
}

CLI::App* AddControlVerb(CLI::App& app, const char* name, const char* help, CliOptions* o) {
  CLI::App* verb = app.add_subcommand(name, help);
  AddCommonOptions(verb, o);
  verb->add_option("--cache", o->cache, "Cache SSD of the daemon to talk to (selects --control)");
  return verb;
}

void AddCreate(CLI::App& app, CliOptions* o, RawOptions* raw) {
  CLI::App* create = app.add_subcommand("create", "Format an SSD as the cache of an HDD");
  AddCommonOptions(create, o);
  create->add_option("--cache", o->cache, "Cache device (SSD) to format")->required();
  create->add_option("--core", o->core, "Core device (HDD) the cache will sit in front of")
      ->required();
  create->add_option("--line-size", raw->line_size,
                     "Cache line size, a power of two from 4K to 1M (default 4K: random data takes only the SSD space it needs)");
  create->add_option("--mode", raw->create_mode, "Initial cache mode (default wt)")
      ->check(CLI::IsMember(kModes));
  create->add_flag("--force", o->force,
                   "Overwrite an existing tiercache or other data (not dirty data: see "
                   "--discard-dirty)");
  create->add_flag("--discard-dirty", o->discard_dirty,
                   "With --force: overwrite even a cache holding dirty data, which is lost");
  raw->create_policies.add_to(create);
}

void AddCheck(CLI::App& app, CliOptions* o) {
  CLI::App* check = app.add_subcommand("check", "Verify the on-SSD metadata without changing it");
  AddCommonOptions(check, o);
  check->add_option("--cache", o->cache, "Cache device (SSD) to check")->required();
  check->add_option("--core", o->core,
                    "Core device (HDD); default: the core recorded in the superblock");
}

void AddAttach(CLI::App& app, CliOptions* o) {
  CLI::App* attach = app.add_subcommand(
      "attach", "Re-bind a cache to its core under a new identity (a copied or restored image), "
                "after checking the size and the data the cache holds clean");
  AddCommonOptions(attach, o);
  attach->add_option("--cache", o->cache, "Cache device (SSD)")->required();
  attach->add_option("--core", o->core, "The core (HDD) as it is now")->required();
  attach->add_flag("--force", o->force,
                   "Re-bind even when the cache holds no clean data to compare");
}

void AddMode(CLI::App& app, CliOptions* o, RawOptions* raw) {
  CLI::App* mode = app.add_subcommand("mode", "Show or switch the cache mode");
  AddCommonOptions(mode, o);
  mode->add_option("--cache", o->cache, "Cache SSD of the daemon to talk to (selects --control)");
  mode->add_option("mode", raw->new_mode, "New mode: wt, wb, wa or pt (omit to show)")
      ->check(CLI::IsMember(kModes));
  mode->add_flag("--drain", o->drain, "Write all dirty data to the core first (not with wb)");
}

void AddPolicy(CLI::App& app, CliOptions* o) {
  CLI::App* policy = AddControlVerb(
      app, "policy",
      "Show or change the admission, replacement and sequential-bypass policies of the running "
      "cache, live; a change is recorded in the superblock and a flag left out keeps its policy",
      o);
  o->policy_change.add_to(policy);
}

void AddCleaning(CLI::App& app, CliOptions* o) {
  CLI::App* cleaning = AddControlVerb(
      app, "cleaning",
      "Show or change how the running cache writes write-back data to the HDD, live, for this "
      "run (tiercached's --cleaning, --dirty-target, ... set it at start); a flag left out keeps "
      "its setting",
      o);
  o->cleaning_change.add_to(cleaning);
}

void AddBench(CLI::App& app) {
  CLI::App* bench = app.add_subcommand("bench", "Run tiercache-bench with the given arguments");
  bench->prefix_command();
  bench->set_help_flag();  // `tiercache bench --help` is tiercache-bench's help
}

// `config check FILE`: a verb with a verb, so later ones (`config show`?) have a place.
CLI::App* AddConfig(CLI::App& app, CliOptions* o) {
  CLI::App* config = app.add_subcommand("config", "Work with tiercached config files");
  config->require_subcommand(1);
  CLI::App* check = config->add_subcommand(
      "check", "Validate a tiercached config file (TOML, see tiercached(8)): prints FILE: ok, or "
               "each problem as FILE:LINE: why");
  check->add_option("file", o->config_file, "The config file, e.g. /etc/tiercache/NAME.conf")
      ->required();
  return check;
}

void AddSim(CLI::App& app) {
  CLI::App* sim = app.add_subcommand("sim", "Replay traces through the cache engine in virtual "
                                            "time: miss ratio per cache size and policy");
  sim->prefix_command();
  sim->set_help_flag();  // `tiercache sim --help` is answered by ParseSimArgs
}

// Checks what CLI11 cannot; prints the problem and returns false on a usage error.
bool Finish(Verb verb, const RawOptions& raw, CliOptions* o, std::ostream& err) {
  if (verb == Verb::kCreate) {
    Result<uint64_t> size = ParseSize(raw.line_size);
    FormatOptions format;
    Status status = size.status();
    if (size.ok() && *size > UINT32_MAX) {
      status = Status::InvalidArgument(std::to_string(*size) + " bytes is too large");
    } else if (size.ok()) {
      format.line_size = uint32_t(*size);
      status = format.validate();
    }
    if (!status.ok()) {
      err << "tiercache create: --line-size: " << status.message() << "\n";
      return false;
    }
    o->line_size = format.line_size;
    o->create_mode = ParseMode(raw.create_mode).value();
    Result<PolicyOptions> policies = raw.create_policies.apply(PolicyOptions{});
    if (!policies.ok()) {
      err << "tiercache create: " << policies.status().message() << "\n";
      return false;
    }
    o->policies = *policies;
  }
  if (verb == Verb::kCreate && o->discard_dirty && !o->force) {
    err << "tiercache create: --discard-dirty needs --force\n";
    return false;
  }
  if (verb == Verb::kPolicy) {
    if (Status s = o->policy_change.check_names(); !s.ok()) {
      err << "tiercache policy: " << s.message() << "\n";
      return false;
    }
  }
  if (verb == Verb::kCleaning) {
    if (Status s = o->cleaning_change.check(); !s.ok()) {
      err << "tiercache cleaning: " << s.message() << "\n";
      return false;
    }
  }
  if (verb == Verb::kMode && !raw.new_mode.empty()) o->new_mode = ParseMode(raw.new_mode).value();
  if (verb == Verb::kMode && o->drain && !o->new_mode) {
    err << "tiercache mode: --drain needs a mode (wt, wb, wa or pt)\n";
    return false;
  }
  if (verb == Verb::kMode && o->drain && o->new_mode == CacheMode::kWriteBack) {
    err << "tiercache mode: --drain writes dirty data back for a mode without it: not with wb\n";
    return false;
  }
  return true;
}

// A parse error as every other error: "tiercache <verb>: <message>" (the message without a
// repeated "<verb>: "), or, without a verb, which verb was not one.
std::string UsageErrorLine(const CLI::App& app, const char* first_arg, std::string message) {
  std::string verb;
  for (const CLI::App* sub = &app; !sub->get_subcommands().empty();) {
    sub = sub->get_subcommands().front();
    verb += (verb.empty() ? "" : " ") + sub->get_name();
  }
  if (verb.empty()) {
    std::string verbs;
    for (const CLI::App* sub : app.get_subcommands({})) {
      verbs += (verbs.empty() ? "" : ", ") + sub->get_name();
    }
    if (first_arg != nullptr && first_arg[0] != '-') {
      return "tiercache: unknown verb '" + std::string(first_arg) + "' (" + verbs + ")";
    }
    if (message.find("subcommand is required") != std::string::npos) {
      return "tiercache: a verb is required (" + verbs + ")";
    }
    return "tiercache: " + message;
  }
  const std::string name = verb.substr(verb.rfind(' ') + 1) + ": ";
  if (message.compare(0, name.size(), name) == 0) message.erase(0, name.size());
  return "tiercache " + verb + ": " + message;
}

ParsedCommandLine Parse(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app("tiercache: manage SSD caches in front of HDDs (see tiercached(8))", "tiercache");
  app.footer(kFooter);
  app.set_version_flag("--version", "tiercache " TIERCACHE_VERSION);  // project() in CMakeLists
  app.require_subcommand(1);
  CliOptions o;
  RawOptions raw;
  AddCreate(app, &o, &raw);
  AddControlVerb(app, "status", "Show the running cache: devices, mode, occupancy", &o);
  CLI::App* stats = AddControlVerb(app, "stats", "Show the cache counters", &o);
  stats->add_flag("--prometheus", o.prometheus,
                  "Print the counters in the Prometheus text format (version 0.0.4)")
      ->excludes("--json");
  CLI::App* top = AddControlVerb(
      app, "top", "Live view: IOPS, MB/s, hit ratio, dirty data and latency, every second", &o);
  top->add_option("--iterations", o.top_iterations, "Print N frames, then exit (default: forever)");
  top->add_option("--interval", o.top_interval_s, "Seconds between frames (default 1)")
      ->check(CLI::Range(0.01, 3600.0));
  AddMode(app, &o, &raw);
  AddPolicy(app, &o);
  AddCleaning(app, &o);
  AddControlVerb(app, "flush", "Write all dirty data to the core, showing progress", &o);
  AddControlVerb(app, "stop", "Stop tiercached after closing the cache cleanly", &o);
  AddCheck(app, &o);
  AddControlVerb(app, "detach",
                 "Switch to write-through, write all dirty data to the core, then stop: leaves "
                 "the core complete on its own", &o);
  AddAttach(app, &o);
  AddControlVerb(app, "reset-health",
                 "Bring the SSD back after the cache took it out of the data path (health "
                 "failed): re-check it by reading its superblock, then use it again", &o);
  AddBench(app);
  AddSim(app);
  const CLI::App* config_check = AddConfig(app, &o);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {  // --help, --version
      app.exit(e, out, err);
      return ParsedCommandLine{std::nullopt, kExitOk};
    }
    err << UsageErrorLine(app, argc > 1 ? argv[1] : nullptr, e.what()) << "\n";
    return ParsedCommandLine{std::nullopt, kExitUsage};
  }
  static const std::pair<const char*, Verb> kVerbs[] = {
      {"create", Verb::kCreate}, {"status", Verb::kStatus}, {"stats", Verb::kStats},
      {"mode", Verb::kMode},     {"flush", Verb::kFlush},   {"stop", Verb::kStop},
      {"check", Verb::kCheck},   {"detach", Verb::kDetach}, {"attach", Verb::kAttach},
      {"bench", Verb::kBench},   {"sim", Verb::kSim},       {"reset-health", Verb::kResetHealth},
      {"top", Verb::kTop},       {"policy", Verb::kPolicy}, {"cleaning", Verb::kCleaning}};
  for (const auto& [name, verb] : kVerbs) {
    if (app.got_subcommand(name)) o.verb = verb;
  }
  if (config_check->parsed()) o.verb = Verb::kConfigCheck;
  if (o.verb == Verb::kBench) o.bench_args = app.get_subcommand("bench")->remaining();
  if (o.verb == Verb::kSim) o.sim_args = app.get_subcommand("sim")->remaining();
  if (!Finish(o.verb, raw, &o, err)) return ParsedCommandLine{std::nullopt, kExitUsage};
  return ParsedCommandLine{std::move(o), kExitOk};
}

}  // namespace

ParsedCommandLine ParseCommandLine(int argc, const char* const* argv, std::ostream& out,
                                   std::ostream& err) {
  std::ostringstream errors;
  ParsedCommandLine parsed = Parse(argc, argv, out, errors);
  err << errors.str();
  const bool json = std::any_of(argv + 1, argv + argc, [](const char* a) {
    return std::string_view(a) == "--json";
  });
  if (parsed.exit_code == kExitUsage && json) {
    // With --json every failure is an error object on stdout (docs/cli.md), usage errors too.
    const std::string said = errors.str();
    std::string message = said.substr(0, said.find('\n'));
    const size_t colon = message.find(": ");
    if (colon != std::string::npos) message.erase(0, colon + 2);
    out << ToLine(ErrorObject(message, "InvalidArgument"));
  }
  return parsed;
}

}  // namespace tiercache
