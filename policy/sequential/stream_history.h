// StreamHistory: the byte ranges that read streams covered past the cutoff lately, so that a
// stream reading one of them again (a loop over data larger than the cutoff, a game's pack files
// at every launch) is cached like any other re-read instead of bypassed on every pass. Fixed
// arrays (24 bytes per extent); not thread-safe (SequentialDetector locks).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tiercache {

class StreamHistory {
 public:
  // Extents remembered per direction: as many as the streams tracked.
  // `horizon`: an extent is forgotten once `horizon` bytes of the direction's requests passed
  // since it was last read (0: never by age, only when its entry is reused).
  StreamHistory(uint32_t extents, uint64_t horizon);

  // An extent, read within the horizon, that a read overlaps: the read reads it again.
  struct Overlap {
    uint64_t span = 0;  // the extent's length before the read was recorded; 0: no overlap
    uint64_t into = 0;  // bytes from the extent's start to the read's (0: it starts before)
  };
  // Records that a stream read [offset, offset + length) past the cutoff at `now` (the
  // direction's bytes observed so far): extends the extent it continues or overlaps (and makes
  // it young), else takes a forgotten entry or the one read longest ago. Returns the extent the
  // read overlapped before it was recorded, if any. REQUIRES: at least one entry; length > 0.
  Overlap add(uint64_t offset, uint64_t length, uint64_t now);

  uint64_t memory_size() const;

 private:
  bool live(size_t i, uint64_t now) const;

  uint64_t horizon_;
  std::vector<uint64_t> start_;
  std::vector<uint64_t> end_;    // one past the extent's last byte; start_ == end_: unused
  std::vector<uint64_t> stamp_;  // `now` when the extent was last read
};

}  // namespace tiercache
