// Metadata scan for `tiercache check`: applies the load rules (docs/on-disk-format.md "Load
// rules") to one page at a time and, for a page the load refuses, says what its readable slot
// holds, so the report can tell what a salvage (loading that slot) would lose. Plain functions;
// thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "cachelib/metadata/metadata_page.h"
#include "cachelib/metadata/superblock.h"

namespace tiercache {

struct PageFinding {
  uint64_t page = 0;
  uint64_t first_line = 0, line_count = 0;  // the lines the page covers
  std::string problem;                      // why the load refuses the page
  bool fallback_readable = false;           // a whole slot remains (what a salvage would load)
  bool other_zero = false;                  // else: a slot is all zero (never written)
  uint64_t fallback_round = 0;
  uint64_t fallback_used = 0, fallback_dirty = 0, fallback_dirty_sectors = 0;

  // One paragraph: the problem, the readable slot's content, what a salvage would lose.
  std::string describe(uint32_t line_size) const;
};

// The rule the load applies to `page`; `intent_complete` is the result of the completeness check
// of an uncommitted round (see OpenTask).
RoundRule RuleForPage(const Superblock& sb, uint64_t page, bool intent_complete);

// Checks one 8192-byte page like the load does (slot choice, then every record of the chosen
// slot against `core_lines`). nullopt when it loads.
std::optional<PageFinding> ScanPage(const Superblock& sb, uint64_t page,
                                    std::span<const std::byte> bytes, const RoundRule& rule,
                                    uint64_t core_lines);

}  // namespace tiercache
