#include "daemon/nbd/buffer_pool.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <thread>

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
// lists, and the allocating thread's exit frees its own lists without touching it.
TEST(BufferPoolTest, ReleaseOnAnotherThreadIsSafe) {
  std::byte* block = nullptr;
  std::thread([&] { block = BufferPool::Allocate(16384); }).join();
  std::thread([&] {
    std::memset(block, 1, 16384);
    BufferPool::Release(block, 16384);
    EXPECT_EQ(BufferPool::ThreadStats().cached_bytes, 16384u);
    EXPECT_EQ(BufferPool::Allocate(16384), block);
  }).join();
  std::free(block);  // the second thread took it back out of its list before exiting
}

}  // namespace
}  // namespace tiercache::nbd
