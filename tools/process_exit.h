// WaitForProcessExit: after tiercached replied to `stop` or `detach`, the CLI waits for its
// process to be gone: the daemon releases the cache's lock only as it exits, so without the wait
// `tiercache stop && tiercached ...` could find the cache still in use.
#pragma once

#include <chrono>
#include <cstdint>

namespace tiercache {

// True when process `pid` no longer runs: no such process, or a zombie (it exited; its files,
// the lock among them, are closed). False for pid <= 0 (unknown).
bool ProcessGone(int64_t pid);

// Polls ProcessGone until it holds or `limit` passed; true when gone (or pid <= 0: nothing to
// wait for).
bool WaitForProcessExit(int64_t pid, std::chrono::milliseconds limit);

}  // namespace tiercache
