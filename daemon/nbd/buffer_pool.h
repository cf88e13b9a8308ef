// BufferPool: recycles the page-aligned memory behind IoBuffers, per thread. Every NBD request
// needs a payload or reply buffer; taking a freed one of the same size back from a thread-local
// list costs no malloc, no page faults and no heap trimming (madvise + TLB shootdown IPIs).
// Blocks are whole pages carved from the thread's slabs (kSlabBytes each, at most
// kMaxCachedBytes of them; past that, the heap, caching at most the rest of kMaxCachedBytes).
// The slabs are registered with the io_uring of the loop running on the thread (LoopRing) when
// it has one, so the devices read and write them as fixed buffers; unregistered before any of
// their memory goes back to the kernel (the thread's end).
// Thread-safe by construction: each thread has its own lists; a block freed on another thread
// than the one that allocated it simply joins that thread's lists.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tiercache::nbd {

class BufferPool {
 public:
  static constexpr size_t kPage = 4096;
  // Blocks larger than this are not cached (plain aligned_alloc/free).
  static constexpr size_t kMaxCachedBlock = (2u << 20) + kPage;
  // Bytes a thread keeps for reuse at most.
  static constexpr size_t kMaxCachedBytes = 64u << 20;
  // A slab: the unit of memory taken from the kernel and registered with a ring.
  static constexpr size_t kSlabBytes = 4u << 20;

  // `bytes` rounded up to whole pages, page-aligned, not zeroed. Never null (aborts when
  // memory is exhausted, like operator new).
  static std::byte* Allocate(size_t bytes);
  // `bytes` as passed to Allocate.
  static void Release(std::byte* block, size_t bytes);

  // This thread's counters (tests and benchmarks).
  struct Stats {
    uint64_t allocations = 0;  // Allocate calls
    uint64_t reused = 0;       // served from the thread's lists
    size_t cached_bytes = 0;   // held for reuse now
    size_t slab_bytes = 0;     // slabs this thread carved (never returned before its end)
    size_t registered_bytes = 0;  // of those, registered with its loop's ring now
  };
  static Stats ThreadStats();
};

}  // namespace tiercache::nbd
