// `tiercache sim ...`: replays block traces through the real engine in virtual time for every
// cache size x admission x replacement and reports miss ratio, SSD bytes written and HDD bytes
// read (text; --json for the referee's judge; --report for an HTML miss-ratio curve). The
// arguments after `sim` arrive unparsed (CliOptions::sim_args) and are parsed here. docs/sim.md.
// Stateless functions; thread-compatible.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "bench/sim/sim_options.h"
#include "tools/cli_options.h"
#include "tools/command_io.h"

namespace tiercache {

struct SimCommandLine {
  bench::SimOptions sim;
  std::string json_path;    // --json FILE ("-": stdout, the text report then goes to stderr)
  std::string report_path;  // --report FILE.html
  bool quiet = false;       // --quiet: no progress lines on stderr
};

struct ParsedSimArgs {
  std::optional<SimCommandLine> command;  // set when the simulation should run
  int exit_code = 0;                      // otherwise: 0 after --help, 2 on a usage error
};

// Parses the arguments after `sim`. Help goes to `out`, errors ("tiercache sim: ...") to `err`;
// unknown policy names are reported in the engine's words.
ParsedSimArgs ParseSimArgs(const std::vector<std::string>& args, std::ostream& out,
                           std::ostream& err);

// Runs a parsed command: progress on io.err, the text report on io.out, the files asked for.
// Returns 0, or 1 when a trace cannot be read or replayed or an output cannot be written.
int RunSimCommand(const SimCommandLine& command, CommandIo& io);

// The `sim` verb: ParseSimArgs(options.sim_args), then RunSimCommand.
int RunSim(const CliOptions& options, CommandIo& io);

}  // namespace tiercache
