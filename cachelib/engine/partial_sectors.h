// Requests aligned to 512 bytes but not to the engine's 4096-byte sectors (the cache exports
// 512-byte logical sectors, as a 512e disk). A read runs over its 4 KiB-aligned cover into a bounce
// buffer; a write runs over its cover too, and the bytes of its first and last sector outside the
// client's range are read under the segment's exclusive core-line lock, before the mode's write
// path runs, so the read-modify-write is atomic against every other request on that line.
#pragma once

#include <memory>

#include "cachelib/engine/request.h"

namespace tiercache {

// What a request over an aligned cover needs to know of the client's unaligned write.
struct PartialWrite {
  uint64_t client_offset = 0;
  uint64_t client_length = 0;
  const std::byte* client_buf = nullptr;  // the caller's bytes; valid until the request completes
  std::shared_ptr<std::byte> bounce;      // the aligned cover the segments write from
};

inline bool SectorAligned(uint64_t offset, uint64_t length) {
  return (offset | length) % kSectorSize == 0;
}
inline uint64_t CoverStart(uint64_t offset) { return offset / kSectorSize * kSectorSize; }
inline uint64_t CoverEnd(uint64_t end) { return (end + kSectorSize - 1) / kSectorSize * kSectorSize; }

// A 4096-byte-aligned buffer (devices may use O_DIRECT).
std::shared_ptr<std::byte> NewSectorBuffer(uint64_t bytes);

// Makes the write request over the aligned cover of [offset, offset + buf.size()), its
// write_buf the bounce buffer holding the client's bytes (the rest is filled under the lock).
Request* NewPartialWrite(Engine& engine, uint64_t offset, std::span<const std::byte> buf,
                         IoCallback done);

// Called with the segment's exclusive lock held: if the segment holds a partial first or last
// sector of the request, fills the bytes around the client's ones (from the SSD where the sector
// is cached, else the core), then runs `then`; on a read error releases the lock and fails the
// segment.
void FillPartialSectorsThen(Request& req, const Segment& seg, EventLoop::Task then);

}  // namespace tiercache
