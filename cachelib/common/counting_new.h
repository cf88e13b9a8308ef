// CountingNew: replaces the global operator new/delete of a test or benchmark binary with versions
// that count allocations, so a test can assert how many a code path makes (the hit path: none).
// Include from exactly one source file of the binary (it defines the replacement functions).
// Thread-safe (one relaxed atomic counter); counts operator new only, not malloc/aligned_alloc.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace tiercache {

inline std::atomic<uint64_t> g_operator_new_calls{0};

// Allocations made through operator new (any form) since the process started.
inline uint64_t OperatorNewCalls() { return g_operator_new_calls.load(std::memory_order_relaxed); }

namespace counting_new {

inline void* Allocate(std::size_t n, std::size_t align) {
  g_operator_new_calls.fetch_add(1, std::memory_order_relaxed);
  if (n == 0) n = 1;
  void* p = align <= alignof(std::max_align_t)
                ? std::malloc(n)
                : std::aligned_alloc(align, (n + align - 1) / align * align);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

}  // namespace counting_new
}  // namespace tiercache

void* operator new(std::size_t n) { return tiercache::counting_new::Allocate(n, 0); }
void* operator new[](std::size_t n) { return tiercache::counting_new::Allocate(n, 0); }
void* operator new(std::size_t n, std::align_val_t a) {
  return tiercache::counting_new::Allocate(n, std::size_t(a));
}
void* operator new[](std::size_t n, std::align_val_t a) {
  return tiercache::counting_new::Allocate(n, std::size_t(a));
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  tiercache::g_operator_new_calls.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(n == 0 ? 1 : n);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  tiercache::g_operator_new_calls.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(n == 0 ? 1 : n);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
