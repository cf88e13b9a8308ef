// DaemonOption: one tiercached option, both a flag (--NAME) and a config file key (NAME). The
// table of them (DaemonOptions()) is the only list of options: the command-line parser and the
// config file reader both walk it and store values with ApplyDaemonOption. Immutable; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "cachelib/common/status.h"
#include "daemon/tiercached/daemon_config.h"

namespace tiercache {

// The order of DaemonOption::Field's alternatives.
enum class OptionKind { kString, kFlag, kUnsigned, kInt, kDouble, kSize };

struct DaemonOption {
  // Where the value goes; its type is the option's kind (a size is an optional byte count).
  using Field = std::variant<std::string DaemonConfig::*, bool DaemonConfig::*,
                             unsigned DaemonConfig::*, int DaemonConfig::*,
                             double DaemonConfig::*, std::optional<uint64_t> DaemonConfig::*>;
  struct Range {
    double min;
    double max;
  };

  std::string name;        // "poll-us": the flag without "--" and the config file key
  std::string short_flag;  // "-f", or empty
  Field field;
  std::string help;        // for --help
  std::optional<Range> range = std::nullopt;  // numbers: the accepted values, inclusive
  // Checks the stored value where the type and range say too little (policy names); may be null.
  Status (*check)(const DaemonConfig&) = nullptr;

  OptionKind kind() const { return static_cast<OptionKind>(field.index()); }
};

// Every option of tiercached, in --help order (--config, which names the file, is not one).
const std::vector<DaemonOption>& DaemonOptions();

// The option called `name` (no dashes), or null.
const DaemonOption* FindDaemonOption(std::string_view name);

// The option name `name` is most likely a typo of (at most 2 edits away), or "".
std::string SuggestDaemonOption(std::string_view name);

// Whole numbers in full ("2000000"), others as short as they go ("0.001"), as messages quote
// option values.
std::string FormatOptionNumber(double v);

// Parses `text` as the option's kind ("true"/"false" for a flag, "4M" or "4194304" for a size),
// checks it and stores it in `config`. InvalidArgument on a bad value, with a message that does
// not name the option: the caller says where it came from ("--poll-us: ", "FILE:3: poll-us: ").
Status ApplyDaemonOption(const DaemonOption& option, std::string_view text, DaemonConfig* config);

}  // namespace tiercache
