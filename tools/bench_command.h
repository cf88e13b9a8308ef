// `tiercache bench ...`: replaces the process with tiercache-bench found next to the tiercache
// binary (or in the build tree), passing the arguments through unchanged.
#pragma once

#include <string>
#include <vector>

#include "tools/cli_options.h"
#include "tools/command_io.h"

namespace tiercache {

// Where tiercache-bench may be, in order: next to the tiercache binary (installed), then where
// the build tree puts it (<build>/bench/runner/, <build>/bench/ beside <build>/tools/).
std::vector<std::string> BenchCandidates(const std::string& self_exe);
// argv for execv: {"tiercache-bench", args..., nullptr-free}.
std::vector<std::string> BenchArgv(const std::vector<std::string>& args);

// Returns only when the exec fails (exit code 1, with the path tried).
int RunBench(const CliOptions& options, CommandIo& io);

}  // namespace tiercache
