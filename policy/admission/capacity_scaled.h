// CapacityScaled: a count of accesses (a window, a span, a halving period) given in cache
// capacities, as AdaptiveAdmission's parameters are: never 0.
#pragma once

#include <algorithm>
#include <cstdint>

namespace tiercache {

inline uint64_t CapacityScaled(double factor, uint32_t capacity) {
  return std::max<uint64_t>(1, static_cast<uint64_t>(factor * capacity));
}

}  // namespace tiercache
