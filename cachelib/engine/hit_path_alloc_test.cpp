// Heap allocations per request on a warm cache's hit paths (operator new counted for this whole
// binary): none for a read hit (4 KiB, or 64 KiB of 4 KiB lines) or a wt/wb write hit, on
// MemoryDevices and a SimEventLoop as in bench/micro/hit_path_benchmark (docs/performance.md
// "Hit path: allocations per request").
#include <gtest/gtest.h>

#include <vector>

#include "cachelib/common/counting_new.h"
#include "tests/support/cache_fixture.h"

namespace tiercache {
namespace {

constexpr uint64_t kLines = 64;
constexpr uint64_t kLine = 64 * 1024;
constexpr uint64_t kBlocks = kLines * kLine / 4096;

class HitPathAllocTest : public ::testing::TestWithParam<CacheMode> {
 protected:
  void SetUp() override {
    FormatOptions f;
    f.mode = GetParam();
    CacheOptions o;
    o.cleaning = "nop";
    // As in the benchmark: every block cached by the warm-up, and no trust rounds (each write
    // to a trusted line waits for a metadata persist; the rounds are background work).
    o.policies.admission = "always";
    o.policies.sequential = SequentialOptions{.enabled = false};
    o.trust_interval = Nanos(0);
    h_ = std::make_unique<testing::CacheHarness>((kLines + 64) * kLine, 1ull << 30, f, o);
    h_->open();
    std::vector<std::byte> line(kLine, std::byte{1});
    for (uint64_t i = 0; i < kLines; ++i) {
      ASSERT_TRUE(testing::SyncWrite(h_->loop, *h_->cache, i * kLine, line).ok());
    }
    for (uint64_t i = 0; i < kLines; ++i) {
      ASSERT_TRUE(testing::SyncRead(h_->loop, *h_->cache, i * kLine, line).ok());
    }
    h_->loop.run_until_idle();
  }

  // Operator new calls over `n` 4 KiB requests to cached blocks, each run to completion, after
  // as many more to warm the pools; `done` counts the completions that succeeded.
  uint64_t AllocsOver(uint64_t n, bool write, uint64_t* done) {
    EventLoop::ScopedCurrent scope(&h_->loop);
    auto run = [&](uint64_t first) {
      for (uint64_t i = first; i < first + n; ++i) {
        const uint64_t off = (i * 7919 % kBlocks) * 4096;
        auto cb = [done](Status s) { *done += s.ok() ? 1 : 0; };
        if (write) {
          h_->cache->write(off, std::span<const std::byte>(buf_, 4096), {}, cb);
        } else {
          h_->cache->read(off, std::span<std::byte>(buf_, 4096), cb);
        }
        h_->loop.run_until_idle();
      }
    };
    run(0);
    *done = 0;
    const uint64_t before = OperatorNewCalls();
    run(n);
    return OperatorNewCalls() - before;
  }

  std::unique_ptr<testing::CacheHarness> h_;
  alignas(4096) std::byte buf_[4096] = {};
};

TEST_P(HitPathAllocTest, ReadHitsAllocateNothing) {
  const CacheCounters before = h_->cache->counters();
  uint64_t done = 0;
  EXPECT_EQ(AllocsOver(1000, false, &done), 0u);
  EXPECT_EQ(done, 1000u);
  const CacheCounters after = h_->cache->counters();
  EXPECT_EQ(after.read_hits - before.read_hits, 2000u);  // warm-up included
  EXPECT_EQ(after.read_misses, before.read_misses);
}

TEST_P(HitPathAllocTest, WriteHitsAllocateNothing) {
  const CacheCounters before = h_->cache->counters();
  uint64_t done = 0;
  EXPECT_EQ(AllocsOver(1000, true, &done), 0u);
  EXPECT_EQ(done, 1000u);
  const CacheCounters after = h_->cache->counters();
  EXPECT_EQ(after.write_hits - before.write_hits, 2000u);
  EXPECT_EQ(after.write_misses, before.write_misses);
}

// A 64 KiB read of 4 KiB lines (tiercached's default): one chunk, 16 line segments read as one
// batch (read_batch.h), from the loop's pools like a 4 KiB hit.
TEST(HitPathAllocChunkTest, SixteenLineReadHitsAllocateNothing) {
  constexpr uint64_t kChunk = 64 * 1024, kChunks = 64;
  FormatOptions f;
  f.mode = CacheMode::kWriteThrough;
  f.line_size = 4096;
  CacheOptions o;
  o.cleaning = "nop";
  o.policies.admission = "always";
  o.policies.sequential = SequentialOptions{.enabled = false};
  o.trust_interval = Nanos(0);
  testing::CacheHarness h(2 * kChunks * kChunk, 1ull << 30, f, o);
  h.open();
  std::vector<std::byte> chunk(kChunk, std::byte{1});
  for (uint64_t i = 0; i < kChunks; ++i) {
    ASSERT_TRUE(testing::SyncRead(h.loop, *h.cache, i * kChunk, chunk).ok());
  }
  h.loop.run_until_idle();
  EventLoop::ScopedCurrent scope(&h.loop);
  uint64_t done = 0;
  auto run = [&](uint64_t first, uint64_t n) {
    for (uint64_t i = first; i < first + n; ++i) {
      h.cache->read((i * 7 % kChunks) * kChunk, chunk, [&done](Status s) { done += s.ok(); });
      h.loop.run_until_idle();
    }
  };
  run(0, 100);  // warms the pools
  const CacheCounters before = h.cache->counters();
  const uint64_t ssd_reads = h.ssd_mem.stats().reads.load();
  const uint64_t allocs_before = OperatorNewCalls();
  run(100, 1000);
  EXPECT_EQ(OperatorNewCalls() - allocs_before, 0u);
  EXPECT_EQ(done, 1100u);
  EXPECT_EQ(h.cache->counters().read_hits - before.read_hits, 1000u);
  EXPECT_EQ(h.ssd_mem.stats().reads.load() - ssd_reads, 1000u);  // one SSD read per chunk
}

INSTANTIATE_TEST_SUITE_P(Modes, HitPathAllocTest,
                         ::testing::Values(CacheMode::kWriteThrough, CacheMode::kWriteBack),
                         [](const auto& info) {
                           return info.param == CacheMode::kWriteThrough ? "Wt" : "Wb";
                         });

}  // namespace
}  // namespace tiercache
