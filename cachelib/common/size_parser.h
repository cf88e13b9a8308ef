// Byte sizes on the command line ("64K", "1M", "65536") and in human output ("64 KiB").
// Suffixes are binary (K = 1024). Stateless free functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "cachelib/common/status.h"

namespace tiercache {

// Accepts digits with an optional suffix K, M, G or T (any case, optionally followed by "iB" or
// "B"): "65536", "64K", "64KiB", "1m". InvalidArgument with a message quoting `text` otherwise,
// including values that do not fit in 64 bits.
Result<uint64_t> ParseSize(std::string_view text);

// "0 B", "512 B", "64 KiB", "1 GiB" when exact; otherwise one decimal: "1.5 GiB", "93.1 MiB".
std::string FormatSize(uint64_t bytes);

}  // namespace tiercache
