#include "cachelib/common/slot_pool.h"

#include <bit>
#include <cassert>
#include <mutex>
#include <new>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define TC_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define TC_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define TC_POISON(p, n) ((void)(p), (void)(n))
#define TC_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace tiercache {
namespace {

constexpr size_t kClasses = 4;  // 64, 128, 256, 512 bytes
constexpr size_t kChunkBytes = 16 << 10;

struct FreeSlot {
  FreeSlot* next;
};

// 1..64 bytes: 0, 65..128: 1, 129..256: 2, 257..512: 3.
size_t ClassOf(size_t bytes) {
  assert(bytes > 0 && bytes <= SlotPool::kMaxBytes);
  return std::bit_width((bytes - 1) >> 6);
}

size_t ClassBytes(size_t c) { return size_t(64) << c; }

// Free slots left by threads that exited, and every chunk (each chunk's first word links to the
// previous one), so a slot whose callback was dropped uncalled stays reachable, not a leak report.
// Never destroyed: threads may exit after static teardown.
struct Orphans {
  std::mutex mu;
  FreeSlot* lists[kClasses] = {};
  void* chunks = nullptr;
};

Orphans& GlobalOrphans() {
  static Orphans* orphans = new Orphans;
  return *orphans;
}

FreeSlot* Next(FreeSlot* slot) {
  TC_UNPOISON(slot, sizeof(FreeSlot));
  FreeSlot* next = slot->next;
  TC_POISON(slot, sizeof(FreeSlot));
  return next;
}

// The calling thread's free lists. Trivially destructible, so reaching them needs no TLS guard
// check; ExitHook (set up on the first refill) hands them to the orphans when the thread exits.
thread_local FreeSlot* t_lists[kClasses];

struct ExitHook {
  ~ExitHook() {
    Orphans& o = GlobalOrphans();
    std::lock_guard lock(o.mu);
    for (size_t c = 0; c < kClasses; ++c) {
      FreeSlot* head = t_lists[c];
      t_lists[c] = nullptr;
      if (head == nullptr) continue;
      FreeSlot* tail = head;
      while (FreeSlot* next = Next(tail)) tail = next;
      TC_UNPOISON(tail, sizeof(FreeSlot));
      tail->next = o.lists[c];
      TC_POISON(tail, sizeof(FreeSlot));
      o.lists[c] = head;
    }
  }
};

// Refills an empty thread list: the orphans of class `c` if any, else a fresh chunk (its first
// kAlign bytes hold the chunk link).
FreeSlot* Refill(size_t c) {
  thread_local ExitHook exit_hook;
  (void)exit_hook;
  {
    Orphans& o = GlobalOrphans();
    std::lock_guard lock(o.mu);
    if (FreeSlot* head = o.lists[c]) {
      o.lists[c] = nullptr;
      return head;
    }
  }
  const size_t bytes = ClassBytes(c);
  auto* chunk = static_cast<std::byte*>(::operator new(kChunkBytes));
  {
    Orphans& o = GlobalOrphans();
    std::lock_guard lock(o.mu);
    *reinterpret_cast<void**>(chunk) = o.chunks;
    o.chunks = chunk;
  }
  FreeSlot* head = nullptr;
  for (size_t off = kChunkBytes; off >= SlotPool::kAlign + bytes; off -= bytes) {
    auto* slot = reinterpret_cast<FreeSlot*>(chunk + off - bytes);
    slot->next = head;
    head = slot;
  }
  TC_POISON(chunk + SlotPool::kAlign, kChunkBytes - SlotPool::kAlign);
  return head;
}

}  // namespace

void* SlotPool::Allocate(size_t bytes) {
  const size_t c = ClassOf(bytes);
  FreeSlot*& head = t_lists[c];
  if (head == nullptr) head = Refill(c);
  FreeSlot* slot = head;
  TC_UNPOISON(slot, ClassBytes(c));
  head = slot->next;
  return slot;
}

void SlotPool::Release(void* p, size_t bytes) {
  const size_t c = ClassOf(bytes);
  auto* slot = static_cast<FreeSlot*>(p);
  slot->next = t_lists[c];
  TC_POISON(slot, ClassBytes(c));
  t_lists[c] = slot;
}

}  // namespace tiercache
