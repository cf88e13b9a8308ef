// SlotPool: per-thread free lists of fixed-size memory slots (64 to 512 bytes), so the objects the
// engine makes and frees once per request (requests, joins, completion closures) cost no heap
// allocation once a loop is warm. Each event loop runs on one thread, so the lists are per loop.
// Slots come from 16 KiB chunks never given back to the heap; a thread's free slots pass to a
// global list when it exits, for the next thread. Thread-safe: a slot may be released on another
// thread than the one that allocated it (it joins that thread's list).
#pragma once

#include <cstddef>

namespace tiercache {

class SlotPool {
 public:
  static constexpr size_t kMaxBytes = 512;
  // Slots are aligned to this (alignof(std::max_align_t)).
  static constexpr size_t kAlign = 16;

  // A slot of at least `bytes` (REQUIRES bytes <= kMaxBytes), uninitialized.
  static void* Allocate(size_t bytes);
  // Returns a slot from Allocate(bytes), same `bytes`.
  static void Release(void* slot, size_t bytes);
};

}  // namespace tiercache
