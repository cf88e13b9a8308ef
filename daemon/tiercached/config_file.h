// The tiercached config file (/etc/tiercache/NAME.conf): TOML, one `key = value` per option of
// DaemonOptions() with the long flag's name as key (`threads = 4`, `seq-cutoff = "4M"`,
// `ublk = true`). Read by `tiercached --config` and `tiercache config check`. Stateless.
#pragma once

#include <string>
#include <vector>

#include "daemon/tiercached/daemon_config.h"

namespace tiercache {

// Reads `path` and stores each of its options in `config`, checked as the flag would be. Returns
// every problem found, in line order, each "PATH:LINE: why" ("PATH: why" when the file cannot be
// read): TOML syntax, unknown keys (with the option a typo probably meant), wrong types, bad
// values. Empty: the file is good and all of it is in `config`.
std::vector<std::string> LoadConfigFile(const std::string& path, DaemonConfig* config);

}  // namespace tiercache
