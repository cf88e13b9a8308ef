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
  // A request continues a stream only when it starts exactly where the stream ends (as Open CAS
  // does), or rewrites the stream's tail. Any tolerance makes random requests over a small area join each other's streams: with
  // 64 streams and a 64 KiB window either way, half of the random 4 KiB reads over a 16 MiB file
  // "continued" a stream and the file's hot data was bypassed.
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

  // The entry the request [offset, offset + length) continues (starts at its end) or whose tail it
  // rewrites (covers its end from inside the stream); kNone when none.
  Index find(uint64_t offset, uint64_t length) const;
  void move_to_front(Index i);

  std::vector<uint64_t> end_;    // one past the stream's highest byte; kUnused when free
  std::vector<uint64_t> start_;  // the stream's lowest byte
  std::vector<Index> prev_, next_;  // LRU list: head_ most recent; free entries sit at the tail
  Index head_ = kNone;
  Index tail_ = kNone;
  uint32_t tracked_ = 0;
};

}  // namespace tiercache
