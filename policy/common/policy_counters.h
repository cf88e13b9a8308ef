// CounterVisitor: how every policy reports its counters (admitted, refused, ghost hits, ...) and
// how the engine sums them over shards for `tiercache stats`. Names are snake_case and stable:
// they appear in `stats --json`. Plain types; thread-compatible.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

namespace tiercache {

using CounterVisitor = std::function<void(std::string_view name, uint64_t value)>;

}  // namespace tiercache
