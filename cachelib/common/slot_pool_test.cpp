#include "cachelib/common/slot_pool.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <thread>

#include "cachelib/common/pooled_once.h"

namespace tiercache {
namespace {

TEST(SlotPoolTest, ReusesTheLastReleasedSlotOfItsSizeClass) {
  void* a = SlotPool::Allocate(100);  // 128-byte class
  void* b = SlotPool::Allocate(128);
  EXPECT_NE(a, b);
  SlotPool::Release(a, 100);
  void* small = SlotPool::Allocate(64);  // another class: never the released 128-byte slot
  EXPECT_NE(small, a);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(small) % SlotPool::kAlign, 0u);
  EXPECT_EQ(SlotPool::Allocate(65), a);  // same class, last in first out
  SlotPool::Release(small, 64);
  SlotPool::Release(a, 100);
  SlotPool::Release(b, 128);
}

TEST(SlotPoolTest, AThreadsFreeSlotsGoToTheNextThread) {
  void* freed = nullptr;
  std::thread([&] {
    freed = SlotPool::Allocate(SlotPool::kMaxBytes);
    SlotPool::Release(freed, SlotPool::kMaxBytes);
  }).join();
  void* got = nullptr;
  // This thread may have 512-byte slots of its own: take them in a new thread, which has none.
  std::thread([&] { got = SlotPool::Allocate(SlotPool::kMaxBytes); }).join();
  EXPECT_EQ(got, freed);
  SlotPool::Release(got, SlotPool::kMaxBytes);
}

TEST(PooledOnceTest, FreesTheClosureWhenCalled) {
  auto alive = std::make_shared<int>(7);
  std::weak_ptr<int> watch = alive;
  int seen = 0;
  std::function<void(int)> fn = PooledOnce([alive = std::move(alive), &seen](int add) {
    seen = *alive + add;
  });
  EXPECT_FALSE(watch.expired());
  fn(1);
  EXPECT_EQ(seen, 8);
  EXPECT_TRUE(watch.expired());  // the closure (and the shared_ptr it held) is gone after the call
}

}  // namespace
}  // namespace tiercache
