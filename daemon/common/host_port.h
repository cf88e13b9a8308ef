// SplitHostPort: "HOST:PORT" as the NBD (--listen) and metrics listeners take it, checked before
// anything binds, so a bad value is a usage error of the flag rather than a failed start.
#pragma once

#include <string>

#include "cachelib/common/status.h"

namespace tiercache {

// Splits "HOST:PORT" or "[::1]:PORT" (brackets dropped); PORT 0-65535.
Status SplitHostPort(const std::string& host_port, std::string& host, std::string& port);

}  // namespace tiercache
