// Exit codes of the `tiercache` CLI (documented in docs/tiercache.1.md). Plain constants.
#pragma once

namespace tiercache {

inline constexpr int kExitOk = 0;        // the operation succeeded
inline constexpr int kExitFailed = 1;    // the operation failed (device error, corruption, ...)
inline constexpr int kExitUsage = 2;     // bad command line
inline constexpr int kExitNoDaemon = 3;  // cannot connect to tiercached

}  // namespace tiercache
