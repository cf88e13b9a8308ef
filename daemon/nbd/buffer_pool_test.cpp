#include "daemon/nbd/buffer_pool.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>

#include "cachelib/common/epoll_event_loop.h"
#include "cachelib/device/loop_ring.h"
#include "daemon/nbd/io_buffer.h"

namespace tiercache::nbd {
namespace {

TEST(BufferPoolTest, ReusesAReleasedBlockOfTheSamePageCount) {
  std::thread([] {
    std::byte* a = BufferPool::Allocate(4096 + 28);
    ASSERT_EQ(reinterpret_cast<uintptr_t>(a) % BufferPool::kPage, 0u);
    std::memset(a, 0x5a, 8192);  // two whole pages are usable
    BufferPool::Release(a, 4096 + 28);
    EXPECT_EQ(BufferPool::ThreadStats().cached_bytes, 8192u);
    std::byte* b = BufferPool::Allocate(8192);  // same page count: the same block
    EXPECT_EQ(b, a);
    std::byte* c = BufferPool::Allocate(4096);  // another size: a new block
    EXPECT_NE(c, a);
    BufferPool::Stats s = BufferPool::ThreadStats();
    EXPECT_EQ(s.allocations, 3u);
    EXPECT_EQ(s.reused, 1u);
    EXPECT_EQ(s.cached_bytes, 0u);
    BufferPool::Release(b, 8192);
    BufferPool::Release(c, 4096);
    EXPECT_EQ(BufferPool::ThreadStats().cached_bytes, 12288u);
  }).join();
}

TEST(BufferPoolTest, KeepsAtMostTheCapPerThreadAndNeverCachesHugeBlocks) {
  std::thread([] {
    constexpr size_t kBlock = 1u << 20;
    constexpr size_t kCount = BufferPool::kMaxCachedBytes / kBlock + 8;
    std::vector<std::byte*> blocks;
    for (size_t i = 0; i < kCount; ++i) blocks.push_back(BufferPool::Allocate(kBlock));
    for (std::byte* b : blocks) BufferPool::Release(b, kBlock);
    EXPECT_EQ(BufferPool::ThreadStats().cached_bytes, BufferPool::kMaxCachedBytes);

    size_t huge = BufferPool::kMaxCachedBlock + BufferPool::kPage;
    std::byte* h = BufferPool::Allocate(huge);
    BufferPool::Release(h, huge);
    EXPECT_EQ(BufferPool::ThreadStats().cached_bytes, BufferPool::kMaxCachedBytes);
  }).join();
}

TEST(BufferPoolTest, IoBuffersRecycleTheirMemoryAndKeepTheDataAligned) {
  std::thread([] {
    const std::byte* first_data = nullptr;
    for (int i = 0; i < 100; ++i) {
      IoBuffer reply = IoBuffer::AllocateAligned(28, 4096);
      ASSERT_EQ(reply.size(), 28u + 4096u);
      ASSERT_EQ(reinterpret_cast<uintptr_t>(reply.data() + 28) % IoBuffer::kAlignment, 0u);
      std::memset(reply.data(), i, reply.size());
      if (i == 0) first_data = reply.data();
      EXPECT_EQ(reply.data(), first_data);  // the same memory every time
    }
    BufferPool::Stats s = BufferPool::ThreadStats();
    EXPECT_EQ(s.allocations, 100u);
    EXPECT_EQ(s.reused, 99u);
  }).join();
}

// A buffer allocated on one thread and released on another joins the releasing thread's
// lists, and the allocating thread's exit gives back its own lists' memory without touching it.
TEST(BufferPoolTest, ReleaseOnAnotherThreadIsSafe) {
  std::byte* block = nullptr;
  std::thread([&] { block = BufferPool::Allocate(16384); }).join();
  std::thread([&] {
    std::memset(block, 1, 16384);
    BufferPool::Release(block, 16384);
    EXPECT_EQ(BufferPool::ThreadStats().cached_bytes, 16384u);
    EXPECT_EQ(BufferPool::Allocate(16384), block);
  }).join();
  BufferPool::Release(block, 16384);  // the second thread took it back out of its list
}

// With no loop on the thread there is no ring: one slab, nothing registered.
TEST(BufferPoolTest, BlocksComeFromOneSlabUnregisteredWithoutALoop) {
  std::thread([] {
    std::byte* a = BufferPool::Allocate(4096);
    std::byte* b = BufferPool::Allocate(1u << 20);
    EXPECT_EQ(b, a + 4096);  // carved one after the other
    BufferPool::Stats s = BufferPool::ThreadStats();
    EXPECT_EQ(s.slab_bytes, BufferPool::kSlabBytes);
    EXPECT_EQ(s.registered_bytes, 0u);
    BufferPool::Release(a, 4096);
    BufferPool::Release(b, 1u << 20);
  }).join();
}

// On a loop's thread the slabs are registered with the loop's ring, also those carved before
// the ring existed (at the next Allocate), and unregistered when the thread ends. (A thread that
// makes an unrun loop current: the ring must outlive the thread, and go before the loop.)
TEST(BufferPoolTest, SlabsAreRegisteredWithTheLoopsRingUntilTheThreadEnds) {
  auto loop = EpollEventLoop::Create();
  ASSERT_TRUE(loop.ok());
  constexpr size_t k2M = 2u << 20;
  std::shared_ptr<LoopRing> ring;
  std::byte *early = nullptr, *first = nullptr, *second = nullptr;
  std::thread([&] {
    EventLoop::ScopedCurrent scope(loop->get());
    early = BufferPool::Allocate(8192);  // no ring yet
    EXPECT_EQ(BufferPool::ThreadStats().registered_bytes, 0u);
    auto r = LoopRing::ForLoop(**loop);
    ASSERT_TRUE(r.ok());
    ring = std::move(r).value();
    first = BufferPool::Allocate(k2M);   // the first slab's tail; registers the slab
    second = BufferPool::Allocate(k2M);  // no room left there: a second slab
    BufferPool::Stats s = BufferPool::ThreadStats();
    EXPECT_EQ(first, early + 8192);
    EXPECT_EQ(s.slab_bytes, 2 * BufferPool::kSlabBytes);
    EXPECT_EQ(s.registered_bytes, 2 * BufferPool::kSlabBytes);
    EXPECT_EQ(ring->find_buffer(early, 8192), 0);
    EXPECT_EQ(ring->find_buffer(first, k2M), 0);
    EXPECT_EQ(ring->find_buffer(second, k2M), 1);
    IoBuffer reply = IoBuffer::AllocateAligned(28, 4096);  // first fit: the first slab's tail
    EXPECT_EQ(reply.data() + 28, first + k2M + 4096);
    EXPECT_EQ(ring->find_buffer(reply.data(), reply.size()), 0);
    BufferPool::Release(early, 8192);
    BufferPool::Release(first, k2M);
    BufferPool::Release(second, k2M);
  }).join();  // the thread's pool lets go of its slabs
  ASSERT_TRUE(ring);
  EXPECT_EQ(ring->find_buffer(early, 8192), -1);
  EXPECT_EQ(ring->find_buffer(second, 4096), -1);
  EXPECT_EQ(ring->register_buffer(early, 4096), 0);  // both slots free again
  EXPECT_EQ(ring->register_buffer(second, 4096), 1);
  ring->unregister_buffer(0);
  ring->unregister_buffer(1);
  ring.reset();
}

// A ring without a buffer table (TIERCACHE_NO_FIXED_BUFFERS=1, as when the kernel refuses):
// the pool works as before, nothing registered.
TEST(BufferPoolTest, WorksUnregisteredWhenTheRingHasNoBufferTable) {
  auto t = LoopThread::Start("pool-noreg");
  ASSERT_TRUE(t.ok());
  std::unique_ptr<LoopThread> thread = std::move(t).value();
  setenv("TIERCACHE_NO_FIXED_BUFFERS", "1", 1);
  thread->run_sync([&] {
    auto ring = LoopRing::ForLoop(thread->loop());
    ASSERT_TRUE(ring.ok());
    for (int i = 0; i < 3; ++i) {
      IoBuffer b = IoBuffer::AllocateAligned(0, 65536);
      std::memset(b.data(), i, b.size());
      EXPECT_EQ((*ring)->find_buffer(b.data(), b.size()), -1);
    }
    BufferPool::Stats s = BufferPool::ThreadStats();
    EXPECT_EQ(s.allocations, 3u);
    EXPECT_EQ(s.reused, 2u);
    EXPECT_EQ(s.slab_bytes, BufferPool::kSlabBytes);
    EXPECT_EQ(s.registered_bytes, 0u);
  });
  unsetenv("TIERCACHE_NO_FIXED_BUFFERS");
}

#if defined(__SANITIZE_ADDRESS__)
// Slab memory is not the allocator's: the pool poisons released blocks and uncarved tails itself.
TEST(BufferPoolTest, AsanCatchesUseAfterReleaseAndRunsIntoTheTail) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        std::byte* b = BufferPool::Allocate(4096);
        BufferPool::Release(b, 4096);
        *static_cast<volatile std::byte*>(b) = std::byte{1};
      },
      "use-after-poison");
  EXPECT_DEATH(
      {
        std::byte* b = BufferPool::Allocate(4096);
        static_cast<volatile std::byte*>(b)[4096] = std::byte{1};
      },
      "use-after-poison");
}
#endif

}  // namespace
}  // namespace tiercache::nbd
