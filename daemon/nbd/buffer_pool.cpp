#include "daemon/nbd/buffer_pool.h"

#include <cstdlib>
#include <new>
#include <vector>

namespace tiercache::nbd {
namespace {

constexpr size_t kClasses = BufferPool::kMaxCachedBlock / BufferPool::kPage + 1;  // by page count

size_t Pages(size_t bytes) { return (bytes + BufferPool::kPage - 1) / BufferPool::kPage; }

std::byte* AllocatePages(size_t pages) {
  void* p = std::aligned_alloc(BufferPool::kPage, (pages ? pages : 1) * BufferPool::kPage);
  if (p == nullptr) throw std::bad_alloc();
  return static_cast<std::byte*>(p);
}

struct ThreadCache {
  std::vector<std::byte*> free[kClasses];
  BufferPool::Stats stats;
  ~ThreadCache() {
    for (auto& list : free) {
      for (std::byte* block : list) std::free(block);
    }
  }
};

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
  std::vector<std::byte*>& list = cache->free[pages];
  if (list.empty()) return AllocatePages(pages);
  std::byte* block = list.back();
  list.pop_back();
  cache->stats.cached_bytes -= pages * kPage;
  ++cache->stats.reused;
  return block;
}

void BufferPool::Release(std::byte* block, size_t bytes) {
  if (block == nullptr) return;
  size_t pages = Pages(bytes);
  ThreadCache* cache = Cache();
  if (cache == nullptr || pages >= kClasses ||
      cache->stats.cached_bytes + pages * kPage > kMaxCachedBytes) {
    std::free(block);
    return;
  }
  cache->free[pages].push_back(block);
  cache->stats.cached_bytes += pages * kPage;
}

BufferPool::Stats BufferPool::ThreadStats() {
  ThreadCache* cache = Cache();
  return cache ? cache->stats : Stats{};
}

}  // namespace tiercache::nbd
