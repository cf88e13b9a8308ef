// The verbs that talk to a running tiercached over its control socket: status, stats, mode,
// flush, stop and detach. Each returns the process exit code (tools/exit_codes.h).
#pragma once

#include "tools/cli_options.h"
#include "tools/command_io.h"

namespace tiercache {

int RunStatus(const CliOptions& options, CommandIo& io);
int RunStats(const CliOptions& options, CommandIo& io);
int RunMode(const CliOptions& options, CommandIo& io);
int RunFlush(const CliOptions& options, CommandIo& io);
int RunStop(const CliOptions& options, CommandIo& io);
// Flushes (repeating while writes dirty lines again, at most kDetachFlushRounds times), then stops.
// Fails without stopping if dirty lines remain.
int RunDetach(const CliOptions& options, CommandIo& io);

inline constexpr int kDetachFlushRounds = 3;

}  // namespace tiercache
