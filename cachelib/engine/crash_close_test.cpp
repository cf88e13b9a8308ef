// Cache::close must make the core durable before it marks the cache clean: a clean shutdown
// promises a warm restart whose clean lines match the core. Both devices sit behind volatile write
// caches (FaultInjectingDevice); write-through writes land on the core unflushed; close; the power
// goes; the cache reopens warm and every byte it serves as clean must be on the core.
#include <gtest/gtest.h>

#include "cachelib/device/fault_injecting_device.h"
#include "tests/support/cache_fixture.h"

namespace tiercache {
namespace {

constexpr uint64_t kCore = 4 << 20;
constexpr uint64_t kWritten = 256 * 1024;  // fits in the cache: every line stays cached

TEST(CrashCloseTest, CloseFlushesTheCoreBeforeMarkingTheCacheClean) {
  testing::CacheHarness h(2 << 20, kCore, FormatOptions{.mode = CacheMode::kWriteThrough});
  FaultInjectingDevice ssd(h.ssd_mem, "ssd"), core(h.core_mem, "core");
  h.ssd = &ssd;
  h.core = &core;
  h.open();
  const auto data = testing::Pattern(7, 0, kWritten);
  for (uint64_t off = 0; off < kWritten; off += 16384) {
    std::span<const std::byte> piece(data.data() + off, 16384);
    ASSERT_TRUE(testing::SyncWrite(h.loop, *h.cache, off, piece).ok());
  }
  ASSERT_GT(core.unflushed_writes(), 0u);
  Status s = testing::SyncClose(h.loop, *h.cache);
  ASSERT_TRUE(s.ok()) << s.ToString();
  h.cache.reset();

  int cut = 0;
  {
    EventLoop::ScopedCurrent scope(&h.loop);
    ssd.power_cut([&](Status s) { cut += s.ok(); });
    core.power_cut([&](Status s) { cut += s.ok(); });
  }
  h.loop.run_until([&] { return cut == 2; });
  ASSERT_EQ(cut, 2);
  EXPECT_EQ(ssd.reverted_writes(), 0u) << "close left SSD writes unflushed";
  EXPECT_EQ(core.reverted_writes(), 0u) << "close left core writes unflushed";
  ssd.reset();
  core.reset();
  h.open();

  ASSERT_TRUE(h.cache->info().was_clean_shutdown);
  EXPECT_EQ(h.cache->counters().lines_used, kWritten / 4096) << "the restart is not warm";
  EXPECT_EQ(h.cache->counters().lines_dirty, 0u);
  std::vector<std::byte> got(kWritten);
  ASSERT_TRUE(testing::SyncRead(h.loop, *h.cache, 0, got).ok());
  EXPECT_TRUE(got == data) << "the cache lost data it acknowledged before a clean close";
  h.core_mem.read_now(0, got);
  for (uint64_t off = 0; off < kWritten; off += 4096) {
    ASSERT_TRUE(std::equal(got.begin() + off, got.begin() + off + 4096, data.begin() + off))
        << "core sector at byte " << off << " is not what the cache holds as clean there: "
        << "close marked the cache clean before the core was durable";
  }
}

}  // namespace
}  // namespace tiercache
