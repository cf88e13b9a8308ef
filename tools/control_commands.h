// The verbs that talk to a running tiercached over its control socket: status, stats, mode,
// policy, cleaning, flush, stop, detach and reset-health. Each returns the process exit code
// (tools/exit_codes.h).
#pragma once

#include "tools/cli_options.h"
#include "tools/command_io.h"

namespace tiercache {

int RunStatus(const CliOptions& options, CommandIo& io);
int RunStats(const CliOptions& options, CommandIo& io);
int RunMode(const CliOptions& options, CommandIo& io);
// Without flags prints the policies in use. With flags, asks for them, applies the flags over
// them (as create does over the defaults: same checks, usage errors), then sends the change.
int RunPolicy(const CliOptions& options, CommandIo& io);
// Without flags prints the cleaning policy and knobs in use. With flags, asks for them, applies
// the flags over them (usage errors as tiercached's flags), then sends the change.
int RunCleaning(const CliOptions& options, CommandIo& io);
int RunFlush(const CliOptions& options, CommandIo& io);
int RunStop(const CliOptions& options, CommandIo& io);
// Sends one "detach" request: the daemon switches to wt, writes all dirty data back, then stops;
// if writing back fails it keeps running (mode restored) and the verb fails.
int RunDetach(const CliOptions& options, CommandIo& io);
// Sends "reset-health": the daemon re-checks the SSD (a read of its superblock) and, if it reads,
// puts the cache back into the data path; refused (IoError) otherwise.
int RunResetHealth(const CliOptions& options, CommandIo& io);

}  // namespace tiercache
