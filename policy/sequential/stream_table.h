// StreamTable: the sequential streams of one direction (reads or writes), recognised by position:
// a request continues the stream whose end it starts near, whichever client sent it. Fixed arrays
// sized at construction (20 bytes per stream) with an LRU list threaded through 16-bit indexes, so
// add() never allocates and scans one contiguous array. Not thread-safe (SequentialDetector locks).
#pragma once

#include <cstdint>
#include <vector>

namespace tiercache {

class StreamTable {
 public:
  // A request continues a stream when its offset is within this many bytes of the stream's end,
  // forward (a gap: a readahead window skipped, a request still in flight on another queue) or
  // backward (an overlap: requests of one stream reordered by multi-queue submission). 64 KiB
  // leaves room for a few reordered requests of up to 32 KiB while a random request lands that
  // close to one of the stream ends only rarely (a 128 KiB window per stream).
  static constexpr uint64_t kJoinWindow = uint64_t{64} << 10;
  static constexpr uint32_t kMaxStreams = 4096;

  // REQUIRES: streams <= kMaxStreams (0 makes an empty table that add() must not be called on).
  explicit StreamTable(uint32_t streams);

  // Adds the request [offset, offset + length) to the stream it continues (making that stream the
  // most recent), or starts a new stream in the least recently used entry. Returns the bytes the
  // stream spanned before this request: 0 for a new stream. A stream's span runs from its lowest
  // to its highest byte, so re-reading or rewriting its tail does not lengthen it.
  // REQUIRES: the table has at least one entry; offset + length does not overflow.
  uint64_t add(uint64_t offset, uint64_t length);

  // Entries holding a stream (at most the table's size).
  uint32_t tracked() const { return tracked_; }
  uint64_t memory_size() const;

 private:
  using Index = uint16_t;
  static constexpr Index kNone = 0xFFFF;
  static constexpr uint64_t kUnused = ~uint64_t{0};  // end_ of an entry holding no stream

  // The entry whose end is nearest `offset`, within kJoinWindow; kNone when none is.
  Index find(uint64_t offset) const;
  void move_to_front(Index i);

  std::vector<uint64_t> end_;    // one past the stream's highest byte; kUnused when free
  std::vector<uint64_t> start_;  // the stream's lowest byte
  std::vector<Index> prev_, next_;  // LRU list: head_ most recent; free entries sit at the tail
  Index head_ = kNone;
  Index tail_ = kNone;
  uint32_t tracked_ = 0;
};

}  // namespace tiercache
