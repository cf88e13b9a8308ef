// Finding the daemon a verb talks to: which control socket, and, when connecting fails, a message
// that says whether tiercached runs at all and which path was tried. Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cachelib/common/status.h"
#include "tools/cli_options.h"
#include "tools/control_client.h"

namespace tiercache {

// --control if given; else the default path for --cache (DefaultControlPath); else the only
// *.ctl socket in the run directory. NotFound when there is none (the daemon is not running),
// InvalidArgument naming them when there are several.
Result<std::string> ResolveControlPath(const CliOptions& options);

// The cache the daemon behind `client` serves, as its status names it; empty when it does not
// answer one.
std::string ServedCache(ControlClient& client);

// OK when `served`, the cache a daemon found at the default socket `control` of `cache` reports,
// is the file or device `cache` names (same inode, else the same absolute path); NotFound
// naming both otherwise: caches whose files share a name share the default sockets.
Status CheckServedCache(const std::string& cache, const std::string& served,
                        const std::string& control);

// Process ids whose /proc/<pid>/comm is exactly `name` (at most 15 characters), ascending;
// zombies (exited, not yet reaped) left out.
std::vector<int64_t> FindProcesses(const std::string& name);

// "cannot connect to tiercached at PATH: <why>; <whether tiercached runs>", for a failed connect
// whose status is `connect_error`.
std::string DescribeConnectFailure(const std::string& path, const Status& connect_error);

}  // namespace tiercache
