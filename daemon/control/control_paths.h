// Default paths of a running tiercached, shared by the daemon and the `tiercache` CLI so that both
// agree without configuration: <run dir>/<name>.ctl (control socket) and <run dir>/<name>.sock
// (NBD export), where <name> is the basename of the cache (SSD) path and <run dir> is
// /run/tiercache unless the environment variable TIERCACHE_RUN_DIR overrides it.
// Stateless free functions; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cachelib/common/status.h"

namespace tiercache {

inline constexpr std::string_view kDefaultRunDirectory = "/run/tiercache";
inline constexpr std::string_view kRunDirectoryEnv = "TIERCACHE_RUN_DIR";

// $TIERCACHE_RUN_DIR if set and non-empty, else /run/tiercache.
std::string RunDirectory();
// "/dev/nvme0n1p2" -> "nvme0n1p2"; "/srv/ssd.img" -> "ssd.img"; trailing slashes are ignored.
std::string CacheName(std::string_view cache_path);
// <run dir>/<CacheName(cache_path)>.ctl
std::string DefaultControlPath(std::string_view cache_path);
// <run dir>/<CacheName(cache_path)>.sock
std::string DefaultExportPath(std::string_view cache_path);
// The *.ctl entries of the run directory, sorted; empty if the directory does not exist.
std::vector<std::string> ListControlSockets();
// Creates the run directory (mode 0700, like the NBD listener) if it does not exist yet.
Status EnsureRunDirectory();
// Absolute and normalized, symlinks kept (/dev/disk/by-id/... names stay stable): how the CLI
// records device paths and how the daemon reports them in status.
std::string AbsolutePath(const std::string& path);

}  // namespace tiercache
