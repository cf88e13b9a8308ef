// LineRecord: the persisted state of one cache line: which core line it holds and which of its
// 4 KiB sectors are valid and dirty. The engine keeps the live copy; MetadataStore persists it.
#pragma once

#include <bitset>
#include <cstdint>

namespace tiercache {

// A cache line holds at most 1 MiB / 4 KiB sectors.
inline constexpr uint32_t kSectorSize = 4096;
inline constexpr uint32_t kMaxSectorsPerLine = 256;
using SectorBits = std::bitset<kMaxSectorsPerLine>;

struct LineRecord {
  static constexpr uint64_t kNoCoreLine = ~uint64_t{0};

  uint64_t core_line = kNoCoreLine;  // core byte offset / line size; kNoCoreLine when free
  SectorBits valid;                  // sector holds the current data of the core sector
  SectorBits dirty;                  // sector is newer than the core; dirty implies valid

  bool in_use() const { return core_line != kNoCoreLine; }
  bool operator==(const LineRecord&) const = default;
};

}  // namespace tiercache
