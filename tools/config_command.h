// `tiercache config check FILE`: validates a tiercached config file with the daemon's own reader
// (daemon/tiercached/config_file.h) without starting anything. Stateless.
#pragma once

#include "tools/cli_options.h"
#include "tools/command_io.h"

namespace tiercache {

// Prints "FILE: ok" on io.out and returns kExitOk, or prints each problem ("FILE:LINE: why") on
// io.err and returns kExitFailed.
int RunConfigCheck(const CliOptions& options, CommandIo& io);

}  // namespace tiercache
