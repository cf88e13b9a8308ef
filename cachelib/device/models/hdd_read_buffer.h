// HddReadBuffer: the drive's read buffer as HddModel sees it: segments of recently read data (LRU)
// plus at most one read-ahead stream, where the idle head keeps reading past the last read until a
// limit or until the head is needed elsewhere. A read fully inside the buffer is served without
// the head; a read that starts inside the stream continues it with no seek and no rotational wait.
// Not thread-safe: HddModel calls it under its own lock.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>

#include "cachelib/device/models/hdd_geometry.h"

namespace tiercache {

class HddReadBuffer {
 public:
  HddReadBuffer(const HddGeometry& geometry, uint32_t segments, uint64_t segment_bytes)
      : geo_(geometry), max_segments_(segments), segment_bytes_(segment_bytes) {}

  // True when [offset, offset + len) is all buffered at time `now` (segments or stream so far).
  bool covers(uint64_t offset, uint64_t len, Nanos now) const;
  // Remembers [start, end) as buffered (keeps the last segment_bytes of it).
  void add(uint64_t start, uint64_t end);
  // Drops buffered data overlapping a write.
  void invalidate(uint64_t offset, uint64_t len);

  // The head is idle at byte `pos` at time `t0` (exactly at that byte's angle) and reads ahead
  // up to `limit`. `seg_start` is where the buffered range of this stream begins.
  void start_stream(uint64_t seg_start, uint64_t pos, Nanos t0, uint64_t limit);
  // The head is needed elsewhere at `t`: what was read ahead so far becomes a segment.
  void stop_stream(Nanos t);
  bool streaming() const { return stream_.has_value(); }
  // If a read of [offset, end) starting at `t` continues the stream (it starts inside the buffered
  // range and the stream has not yet stopped at its limit), the time its last byte passes the head.
  std::optional<Nanos> continue_stream(uint64_t offset, uint64_t end, Nanos t) const;

 private:
  struct Range {
    uint64_t start, end;
  };
  struct Stream {
    uint64_t seg_start, pos0, limit;
    Nanos t0;
  };
  uint64_t stream_pos(Nanos t) const;

  const HddGeometry& geo_;
  const uint32_t max_segments_;
  const uint64_t segment_bytes_;
  std::deque<Range> segments_;  // least recently used first
  std::optional<Stream> stream_;
};

}  // namespace tiercache
