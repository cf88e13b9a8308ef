// SuperblockChange: the fields one superblock update changes, applied to the durable superblock
// to make the next one (PagedMetadataStore writes it as docs/on-disk-format.md "Two copies" says).
// A value type; thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "cachelib/metadata/superblock.h"

namespace tiercache {

struct SuperblockChange {
  std::optional<CacheMode> mode;
  std::optional<PolicyOptions> policies;
  std::optional<bool> clean_shutdown;
  std::optional<uint64_t> committed_round;
  std::optional<std::pair<uint64_t, std::vector<uint64_t>>> intent;  // round, pages
  std::optional<uint64_t> journal_start_round;
  bool mirror = false;  // write both copies (state changes outside persist rounds)

  // `current` with these changes, written as the current format version (a version 5 cache has
  // no marker and no wrapped journal yet, so it is a version 6 cache as it is).
  Superblock applied_to(Superblock current) && {
    current.version = format::kVersion;
    if (mode) current.mode = *mode;
    if (policies) current.policies = std::move(*policies);
    if (clean_shutdown) current.clean_shutdown = *clean_shutdown;
    if (committed_round) current.committed_round = *committed_round;
    if (intent) std::tie(current.intent_round, current.intent_pages) = std::move(*intent);
    if (journal_start_round) current.journal_start_round = *journal_start_round;
    return current;
  }
};

}  // namespace tiercache
