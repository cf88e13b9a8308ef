// tiercache: the admin CLI (docs/cli.md, docs/tiercache.1.md).
#include <unistd.h>

#include <iostream>

#include "tools/attach_command.h"
#include "tools/bench_command.h"
#include "tools/check_command.h"
#include "tools/cli_options.h"
#include "tools/config_command.h"
#include "tools/control_commands.h"
#include "tools/create_command.h"
#include "tools/sim_command.h"
#include "tools/top_command.h"

int main(int argc, char** argv) {
  using namespace tiercache;
  ParsedCommandLine parsed = ParseCommandLine(argc, argv, std::cout, std::cerr);
  if (!parsed.options) return parsed.exit_code;
  const CliOptions& options = *parsed.options;
  CommandIo io{std::cout, std::cerr, options.json, isatty(STDOUT_FILENO) == 1};
  switch (options.verb) {
    case Verb::kCreate: return RunCreate(options, io);
    case Verb::kStatus: return RunStatus(options, io);
    case Verb::kStats: return RunStats(options, io);
    case Verb::kMode: return RunMode(options, io);
    case Verb::kPolicy: return RunPolicy(options, io);
    case Verb::kCleaning: return RunCleaning(options, io);
    case Verb::kFlush: return RunFlush(options, io);
    case Verb::kStop: return RunStop(options, io);
    case Verb::kCheck: return RunCheck(options, io);
    case Verb::kDetach: return RunDetach(options, io);
    case Verb::kAttach: return RunAttach(options, io);
    case Verb::kBench: return RunBench(options, io);
    case Verb::kSim: return RunSim(options, io);
    case Verb::kResetHealth: return RunResetHealth(options, io);
    case Verb::kConfigCheck: return RunConfigCheck(options, io);
    case Verb::kTop: return RunTop(options, io);
  }
  return 2;
}
