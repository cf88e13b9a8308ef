// Unix stream socket helpers shared by the control server and the `tiercache` CLI.
// Stateless free functions; thread-safe. Returned fds are owned by the caller (close them).
#pragma once

#include <sys/types.h>

#include <string>

#include "cachelib/common/status.h"

namespace tiercache {

struct ListeningSocket {
  int fd = -1;      // non-blocking, close-on-exec, listening
  ino_t inode = 0;  // of the socket file created at the path
};

// Creates a listening socket at `path` with mode 0600. An existing socket file nobody listens on
// is replaced; a live one is refused (Busy); any other kind of file is refused (InvalidArgument).
Result<ListeningSocket> ListenUnix(const std::string& path);

// Connects to `path` (blocking). The Status carries errno's meaning: NotFound (ENOENT),
// IoError "Connection refused" (ECONNREFUSED), IoError "Permission denied" (EACCES).
Result<int> ConnectUnix(const std::string& path);

// Removes `path` only if it still is the socket file with `inode` (not a successor's).
void UnlinkIfSame(const std::string& path, ino_t inode);

}  // namespace tiercache
