// StreamReadahead: when a read stream the SSD serves is about to run into blocks the cache does
// not hold, has the core read the first of them ahead of the stream (Device::prefetch), so a disk
// seeks and starts its own read-ahead while the SSD still serves, instead of when the stream
// arrives (HD Tune's dip where a linear read moves from the SSD back to the HDD). Owned by the
// Engine; consider() is thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>

namespace tiercache {

class Engine;

class StreamReadahead {
 public:
  // Bytes the core reads ahead at most each time (the missing run, if shorter): what a disk needs
  // to stream on from there.
  static constexpr uint64_t kReadaheadBytes = uint64_t{1} << 20;
  // Smaller reads never trigger it: a linear reader (a copy, HD Tune) reads large requests.
  static constexpr uint64_t kMinRequestBytes = 256 * 1024;

  // `window`: how far ahead of a stream to look, in bytes (CacheOptions::stream_readahead_bytes);
  // 0 turns it off.
  StreamReadahead(Engine& engine, uint64_t window) : engine_(engine), window_(window) {}

  // A read of [offset, offset + length) that is not bypassed; `stream_bytes`: what its stream
  // spanned before it (SequentialDetector::observe). If it is at least kMinRequestBytes long,
  // continues a stream that already spanned kReadaheadBytes and this request's length, ends in a
  // block the cache holds, and a block within the window after it is missing, prefetches the
  // core's run of missing blocks from there, once per approach of a stream to that block.
  void consider(uint64_t offset, uint64_t length, uint64_t stream_bytes);

 private:
  // True if every sector of core line `core_line` is valid in the cache.
  bool cached(uint64_t core_line);
  // The first core line in [first, end) that cached() says `is_cached` of; `end` if none.
  uint64_t next_where(uint64_t first, uint64_t end, bool is_cached);

  Engine& engine_;
  const uint64_t window_;
  // A recent prefetch: where it starts, and the end of the read that asked for it (or of the
  // latest read that found it issued).
  struct Issued {
    uint64_t at = ~uint64_t{0};
    uint64_t from = 0;
  };
  std::mutex mu_;
  std::array<Issued, 16> recent_{};  // GUARDED_BY(mu_)
  size_t next_ = 0;                  // GUARDED_BY(mu_)
};

}  // namespace tiercache
