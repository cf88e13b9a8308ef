// Trace families for tuning admission and replacement: seeded, deterministic streams of 4 KiB
// block numbers shaped after the workloads the cache must handle (hot sets, Zipf with scans,
// loops larger than the cache, shifting hot sets, one-time boot reads, blocks read twice), plus
// variants of each with other proportions to check that tuning did not overfit. Plain functions
// returning owned vectors; thread-safe. Testing only.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace tiercache {

enum class FamilyGroup {
  kTarget,   // the five families the targets are measured on
  kGuard,    // a behaviour that must not break (blocks read exactly twice)
  kVariant,  // a target or guard family with other proportions
};

struct TraceFamily {
  std::string_view name;
  std::string_view description;  // shape, in units of the cache size C (blocks)
  FamilyGroup group;
  std::vector<uint64_t> (*generate)(uint32_t cache_blocks, uint64_t seed);
};

// Every family, targets first; each trace is 20 * cache_blocks accesses long.
std::span<const TraceFamily> TraceFamilies();
// nullptr when there is no family of that name.
const TraceFamily* FindTraceFamily(std::string_view name);

}  // namespace tiercache
