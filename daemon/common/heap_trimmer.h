// HeapTrimmer: gives malloc's free heap memory back to the kernel after a burst. tiercached keeps
// request buffers up to 64 MiB in the heap for reuse (no mmap per request), so a burst of large
// requests (many connections with 1 MiB reads in flight) would otherwise stay resident for good.
#pragma once

#include <cstddef>

#include "cachelib/common/event_loop.h"
#include "daemon/common/periodic_timer.h"

namespace tiercache {

// Every `interval` on `loop`: when the heaps hold more than `keep_free` bytes free and the
// process grew by more than that since the last trim (free pages already given back stay free in
// malloc's lists), trims them (malloc_trim). Not thread-safe: start(), stop() and check_now() on
// the loop's thread.
class HeapTrimmer {
 public:
  struct Options {
    Nanos interval = std::chrono::seconds(10);
    size_t keep_free = size_t{256} << 20;
  };
  HeapTrimmer(EventLoop& loop, Options options)
      : options_(options), timer_(loop, options.interval, [this] { check_now(); }) {}

  void start() { timer_.start(); }
  // Cancels the next check. REQUIRES: called on the loop's thread, or once the loop has stopped.
  void stop() { timer_.stop(); }

  // One check as the timer runs it; returns whether it trimmed.
  bool check_now();

  // Free bytes in malloc's heaps (mallinfo2's fordblks), and the process's resident bytes.
  static size_t FreeHeapBytes();
  static size_t ResidentBytes();

 private:
  const Options options_;
  size_t resident_after_trim_ = 0;
  PeriodicTimer timer_;
};

}  // namespace tiercache
