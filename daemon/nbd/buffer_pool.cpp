#include "daemon/nbd/buffer_pool.h"

#include <linux/capability.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

#include "cachelib/common/event_loop.h"
#include "cachelib/device/loop_ring.h"

// Slab memory is not the allocator's, so ASan sees a block there only as we tell it: poisoned
// while free or not yet carved, so a use after Release or a run past a block into free memory
// is still caught.
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define TC_POOL_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define TC_POOL_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define TC_POOL_POISON(p, n) ((void)(p), (void)(n))
#define TC_POOL_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace tiercache::nbd {
namespace {

constexpr size_t kClasses = BufferPool::kMaxCachedBlock / BufferPool::kPage + 1;  // by page count
constexpr size_t kSlab = BufferPool::kSlabBytes;
// Address space reserved once for every thread's slabs (nothing is committed until a slab is
// carved): a slab block is recognised on any thread by its address alone.
constexpr size_t kArenaBytes = size_t{16} << 30;

size_t Pages(size_t bytes) { return (bytes + BufferPool::kPage - 1) / BufferPool::kPage; }
// What a block of `pages` spans (a 0-page request gets one page).
size_t BlockBytes(size_t pages) { return (pages ? pages : 1) * BufferPool::kPage; }

std::byte* AllocatePages(size_t pages) {
  void* p = std::aligned_alloc(BufferPool::kPage, BlockBytes(pages));
  if (p == nullptr) throw std::bad_alloc();
  return static_cast<std::byte*>(p);
}

struct Arena {
  std::byte* base = nullptr;  // kSlab-aligned (huge-page friendly); null if the reserve failed
  std::atomic<size_t> next{0};
};

Arena& TheArena() {
  static Arena* arena = [] {
    auto* a = new Arena();
    void* p = ::mmap(nullptr, kArenaBytes + kSlab, PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p != MAP_FAILED) {
      const auto at = (reinterpret_cast<uintptr_t>(p) + kSlab - 1) / kSlab * kSlab;
      a->base = reinterpret_cast<std::byte*>(at);
    }
    return a;
  }();
  return *arena;
}

bool InArena(const std::byte* p) {
  const Arena& a = TheArena();
  return a.base != nullptr && p >= a.base && p < a.base + kArenaBytes;
}

// A fresh slab, or null when the arena is used up. Slabs are never returned to the arena: blocks
// of a slab may live on in other threads' lists after its thread ends.
std::byte* NewSlab() {
  Arena& a = TheArena();
  if (a.base == nullptr) return nullptr;
  const size_t at = a.next.fetch_add(kSlab, std::memory_order_relaxed);
  if (at + kSlab > kArenaBytes) return nullptr;
  if (::mprotect(a.base + at, kSlab, PROT_READ | PROT_WRITE) != 0) return nullptr;
  TC_POOL_POISON(a.base + at, kSlab);
  return a.base + at;
}

// Hands pages nobody uses back to the kernel (their addresses stay reserved).
void Discard(std::byte* p, size_t bytes) { ::madvise(p, bytes, MADV_DONTNEED); }

// How much the process lets its pools pin. Without CAP_IPC_LOCK every ring's own memory counts
// against RLIMIT_MEMLOCK too (kernel 6.13+): pinning at most half of it leaves rings room.
size_t PinBudget() {
  static const size_t budget = [] {
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct caps[2]{};
    if (syscall(SYS_capget, &header, caps) == 0 &&
        (caps[CAP_IPC_LOCK / 32].effective & (1u << (CAP_IPC_LOCK % 32))) != 0) {
      return SIZE_MAX;
    }
    rlimit r{};
    if (getrlimit(RLIMIT_MEMLOCK, &r) != 0) return size_t{0};
    return r.rlim_cur == RLIM_INFINITY ? SIZE_MAX : size_t(r.rlim_cur / 2);
  }();
  return budget;
}
std::atomic<size_t> g_pinned{0};  // slab bytes registered with a ring, all threads

struct Slab {
  std::byte* base;
  size_t used;  // bytes carved from the front
  int index;    // in the ring's buffer table, or -1
};

struct ThreadCache {
  std::vector<std::byte*> free[kClasses];
  std::vector<Slab> slabs;
  size_t cached_heap_bytes = 0;  // of stats.cached_bytes, in heap blocks
  std::weak_ptr<LoopRing> ring;  // the ring the slabs are registered with
  uint64_t ring_generation = ~uint64_t{0};
  BufferPool::Stats stats;
  ~ThreadCache();
};

// `ring` null: it is gone, and its table with it.
void Unregister(LoopRing* ring, Slab& s) {
  if (s.index < 0) return;
  if (ring != nullptr) ring->unregister_buffer(s.index);
  g_pinned.fetch_sub(kSlab, std::memory_order_relaxed);
  s.index = -1;
}

int Register(LoopRing* ring, std::byte* base) {
  if (ring == nullptr) return -1;
  if (g_pinned.fetch_add(kSlab, std::memory_order_relaxed) + kSlab > PinBudget()) {
    g_pinned.fetch_sub(kSlab, std::memory_order_relaxed);
    return -1;
  }
  const int index = ring->register_buffer(base, kSlab);
  if (index < 0) g_pinned.fetch_sub(kSlab, std::memory_order_relaxed);
  return index;
}

ThreadCache::~ThreadCache() {
  // Before any memory goes: the ring must not hand these pages to the kernel again.
  std::shared_ptr<LoopRing> r = ring.lock();
  for (Slab& s : slabs) {
    Unregister(r.get(), s);
    Discard(s.base + s.used, kSlab - s.used);
  }
  for (size_t pages = 0; pages < kClasses; ++pages) {
    for (std::byte* block : free[pages]) {
      if (InArena(block)) {
        Discard(block, BlockBytes(pages));
      } else {
        std::free(block);
      }
    }
  }
}

// The thread's slabs follow the ring of the loop running on it: registered with a ring created
// since they last looked (a loop's ring can come and go with its users), unregistered from one
// it no longer runs. Called when LoopRing::Generation() moved.
void FollowRing(ThreadCache& c) {
  c.ring_generation = LoopRing::Generation();
  EventLoop* loop = EventLoop::current();
  std::shared_ptr<LoopRing> now = loop != nullptr ? LoopRing::Existing(*loop) : nullptr;
  std::shared_ptr<LoopRing> before = c.ring.lock();
  if (now == before) return;
  for (Slab& s : c.slabs) {
    Unregister(before.get(), s);
    s.index = Register(now.get(), s.base);
  }
  c.ring = now;
}

// `pages` from a slab's free tail (a new slab within the thread's budget), or null.
std::byte* Carve(ThreadCache& c, size_t pages) {
  const size_t bytes = BlockBytes(pages);
  for (Slab& s : c.slabs) {
    if (kSlab - s.used < bytes) continue;
    std::byte* block = s.base + s.used;
    s.used += bytes;
    TC_POOL_UNPOISON(block, bytes);
    return block;
  }
  if ((c.slabs.size() + 1) * kSlab > BufferPool::kMaxCachedBytes) return nullptr;
  std::byte* base = NewSlab();
  if (base == nullptr) return nullptr;
  c.slabs.push_back(Slab{base, bytes, Register(c.ring.lock().get(), base)});
  c.stats.slab_bytes += kSlab;
  TC_POOL_UNPOISON(base, bytes);
  return base;
}

// Trivially destructible, so it stays readable while thread_local destructors run: a buffer
// released after the cache is gone goes straight back to the allocator.
thread_local bool tls_cache_gone = false;

ThreadCache* Cache() {
  if (tls_cache_gone) return nullptr;
  struct Holder {
    ThreadCache cache;
    ~Holder() { tls_cache_gone = true; }
  };
  thread_local Holder holder;
  return &holder.cache;
}

}  // namespace

std::byte* BufferPool::Allocate(size_t bytes) {
  size_t pages = Pages(bytes);
  ThreadCache* cache = Cache();
  if (cache == nullptr || pages >= kClasses) return AllocatePages(pages);
  ++cache->stats.allocations;
  if (cache->ring_generation != LoopRing::Generation()) FollowRing(*cache);
  std::vector<std::byte*>& list = cache->free[pages];
  if (list.empty()) {
    std::byte* block = Carve(*cache, pages);
    return block != nullptr ? block : AllocatePages(pages);
  }
  std::byte* block = list.back();
  list.pop_back();
  cache->stats.cached_bytes -= pages * kPage;
  if (InArena(block)) {
    TC_POOL_UNPOISON(block, BlockBytes(pages));
  } else {
    cache->cached_heap_bytes -= pages * kPage;
  }
  ++cache->stats.reused;
  return block;
}

void BufferPool::Release(std::byte* block, size_t bytes) {
  if (block == nullptr) return;
  size_t pages = Pages(bytes);
  ThreadCache* cache = Cache();
  if (InArena(block)) {  // never freed: back to a list, or to the kernel as the thread ends
    TC_POOL_POISON(block, BlockBytes(pages));
    if (cache == nullptr) return Discard(block, BlockBytes(pages));
    cache->free[pages].push_back(block);
    cache->stats.cached_bytes += pages * kPage;
    return;
  }
  if (cache == nullptr || pages >= kClasses ||
      cache->stats.slab_bytes + cache->cached_heap_bytes + pages * kPage > kMaxCachedBytes) {
    std::free(block);
    return;
  }
  cache->free[pages].push_back(block);
  cache->stats.cached_bytes += pages * kPage;
  cache->cached_heap_bytes += pages * kPage;
}

BufferPool::Stats BufferPool::ThreadStats() {
  ThreadCache* cache = Cache();
  if (cache == nullptr) return Stats{};
  Stats s = cache->stats;
  if (cache->ring.lock() != nullptr) {
    for (const Slab& slab : cache->slabs) s.registered_bytes += slab.index >= 0 ? kSlab : 0;
  }
  return s;
}

}  // namespace tiercache::nbd
