// PooledOnce: wraps a closure for a std::function (IoCallback, EventLoop::Task) without a heap
// allocation. libstdc++'s std::function stores a callable inline only when it is trivially
// copyable and at most 16 bytes; PooledOnce puts the closure in a SlotPool slot and returns a
// callable holding only the slot's address. One-shot: the closure is moved out and its slot freed
// when called, so it must be called exactly once (as every Device and EventLoop callback is). A
// copy may be dropped, never called a second time; a closure never called keeps its slot.
#pragma once

#include <new>
#include <type_traits>
#include <utility>

#include "cachelib/common/slot_pool.h"

namespace tiercache {

template <class Fn>
auto PooledOnce(Fn fn) {
  using F = std::decay_t<Fn>;
  static_assert(sizeof(F) <= SlotPool::kMaxBytes, "closure too big for a pool slot");
  static_assert(alignof(F) <= SlotPool::kAlign);
  F* slot = new (SlotPool::Allocate(sizeof(F))) F(std::move(fn));
  return [slot](auto&&... args) {
    // Free the slot before the call: the closure may start the next request, which reuses it.
    F f(std::move(*slot));
    slot->~F();
    SlotPool::Release(slot, sizeof(F));
    return f(std::forward<decltype(args)>(args)...);
  };
}

}  // namespace tiercache
