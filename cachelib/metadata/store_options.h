// StoreOptions: how an opened metadata store persists, chosen at MetadataStore::Open and not
// recorded on the SSD (either choice reads what the other wrote). Plain values; validate() before
// use (Open does).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "cachelib/common/status.h"

namespace tiercache {

// A fraction of the record journal's blocks, num / den.
struct JournalFill {
  uint64_t num = 0;
  uint64_t den = 1;  // > 0

  // `used` of `capacity` blocks is more than this fraction of them.
  constexpr bool exceeded_by(uint64_t used, uint64_t capacity) const {
    return used * den > capacity * num;
  }
  constexpr bool at_most(const JournalFill& other) const {
    return num * other.den <= other.num * den;
  }
  std::string ToString() const { return std::to_string(num) + "/" + std::to_string(den); }
};

struct StoreOptions {
  // Persists write journal steps (docs/on-disk-format.md "The ring and steps") only for a
  // metadata region of more pages than this; a smaller one checkpoints when its journal fills,
  // which waits no longer than four steps would and writes each page a quarter less often.
  // Default: four steps of the largest size; 0 (tests) steps every region.
  uint64_t steps_above_pages = 4 * 256;
  // A persist whose journal round leaves the journal fuller than `one_step_above` then writes one
  // step; fuller than `four_steps_above`, up to four while it stays so. A page is rewritten once
  // per pass of the journal over it, so the later steps start the fewer bytes per client write;
  // the room above the thresholds is where steps catch up with the first pass over an empty
  // journal, when every page is changed within a few rounds (a round that does not fit is a
  // checkpoint). Defaults chosen by docs/performance.md "Session 14: steps start later". Must be
  // 0 <= one_step_above <= four_steps_above < 1.
  JournalFill one_step_above{13, 16};
  JournalFill four_steps_above{7, 8};

  // InvalidArgument naming the bad field.
  Status validate() const;
};

// Sets the two step thresholds from "ONE/N,FOUR/N" (e.g. "13/16,7/8", tiercached
// --journal-steps); InvalidArgument when malformed or out of order (validate()), `into`
// unchanged then.
Status ParseJournalSteps(std::string_view text, StoreOptions& into);

}  // namespace tiercache
