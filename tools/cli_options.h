// CliOptions: the parsed and validated `tiercache` command line (one verb and its options).
// ParseCommandLine wraps CLI11: it prints help or usage errors itself and says how to exit.
// Value types and a stateless function; thread-compatible.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "cachelib/metadata/metadata_store.h"
#include "policy/policy_options.h"
#include "tools/cleaning_flags.h"
#include "tools/policy_flags.h"

namespace tiercache {

enum class Verb {
  kCreate, kStatus, kStats, kMode, kFlush, kStop, kCheck, kDetach, kAttach, kBench, kSim,
  kResetHealth, kConfigCheck, kTop, kPolicy, kCleaning
};

struct CliOptions {
  Verb verb = Verb::kStatus;
  std::string control;  // --control PATH; empty: derived (see ResolveControlPath)
  std::string cache;    // --cache SSD (create, check, attach; the other verbs derive --control)
  std::string core;     // --core HDD (create, attach; optional for check)
  uint32_t line_size = 4096;  // create --line-size, validated by FormatOptions
  CacheMode create_mode = CacheMode::kWriteThrough;  // create --mode
  PolicyOptions policies;  // create --admission, --replacement, --seq-cutoff (PolicyFlags)
  std::optional<CacheMode> new_mode;  // mode verb; absent: report the current mode
  // policy --admission, --replacement, --seq-*: as typed (names checked), applied over the
  // daemon's policies in force; none given: report them.
  PolicyFlags policy_change;
  // cleaning --policy, --dirty-target, ...: as typed (each checked), applied over the daemon's
  // cleaning in force; none given: report it.
  CleaningFlags cleaning_change;
  bool force = false;   // create --force, attach --force
  bool discard_dirty = false;  // create --discard-dirty (needs --force)
  bool drain = false;   // mode --drain
  bool json = false;    // --json
  bool prometheus = false;  // stats --prometheus (excludes --json)
  uint32_t top_iterations = 0;   // top --iterations N: frames to print; 0 = until interrupted
  double top_interval_s = 1.0;   // top --interval SECONDS between frames (default 1)
  std::vector<std::string> bench_args;  // bench: passed through unchanged
  std::vector<std::string> sim_args;    // sim: parsed by ParseSimArgs (tools/sim_command.h)
  std::string config_file;  // config check FILE
};

struct ParsedCommandLine {
  std::optional<CliOptions> options;  // set when the verb should run
  int exit_code = 0;                  // otherwise: exit with this (0 after --help, 2 on errors)
};

// Parses argv (argv[0] is the program name). Help goes to `out`, errors to `err`.
ParsedCommandLine ParseCommandLine(int argc, const char* const* argv, std::ostream& out,
                                   std::ostream& err);

}  // namespace tiercache
