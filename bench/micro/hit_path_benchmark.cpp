// CPU cost of the cache hit path on memory devices (target: <= 1 us per 4 KiB read or write hit).
// Run: build/bench/micro/hit_path_benchmark  (Google Benchmark; reports ns of CPU per request).
#include <benchmark/benchmark.h>

#include "tests/support/cache_fixture.h"

namespace tiercache {
namespace {

constexpr uint64_t kLines = 256;
constexpr uint64_t kLine = 64 * 1024;

std::unique_ptr<testing::CacheHarness> WarmCache(CacheMode mode) {
  FormatOptions f;
  f.mode = mode;
  CacheOptions o;
  o.cleaning = "nop";
  auto h = std::make_unique<testing::CacheHarness>((kLines + 64) * kLine, 1ull << 30, f, o);
  h->open();
  std::vector<std::byte> line(kLine, std::byte{1});
  for (uint64_t i = 0; i < kLines; ++i) (void)testing::SyncWrite(h->loop, *h->cache, i * kLine, line);
  std::vector<std::byte> buf(kLine);
  for (uint64_t i = 0; i < kLines; ++i) (void)testing::SyncRead(h->loop, *h->cache, i * kLine, buf);
  h->loop.run_until_idle();
  return h;
}

void RunHits(benchmark::State& state, CacheMode mode, bool write) {
  auto h = WarmCache(mode);
  alignas(4096) static std::byte buf[4096];
  uint64_t i = 0, done = 0;
  EventLoop::ScopedCurrent scope(&h->loop);
  for (auto _ : state) {
    uint64_t off = (i++ * 7919 % (kLines * 16)) * 4096;
    if (write) {
      h->cache->write(off, std::span<const std::byte>(buf, 4096), {}, [&](Status) { ++done; });
    } else {
      h->cache->read(off, std::span<std::byte>(buf, 4096), [&](Status) { ++done; });
    }
    h->loop.run_until_idle();
  }
  CacheCounters c = h->cache->counters();
  state.counters["hit_ratio"] =
      write ? double(c.write_hits) / double(c.write_hits + c.write_misses)
            : double(c.read_hits) / double(c.read_hits + c.read_misses + c.read_partial_hits);
  state.SetItemsProcessed(int64_t(done));
}

void BM_ReadHitWt(benchmark::State& s) { RunHits(s, CacheMode::kWriteThrough, false); }
void BM_WriteHitWb(benchmark::State& s) { RunHits(s, CacheMode::kWriteBack, true); }
void BM_WriteHitWt(benchmark::State& s) { RunHits(s, CacheMode::kWriteThrough, true); }

// The floor: the same request straight to a MemoryDevice (no cache), for comparison.
void BM_RawMemoryRead(benchmark::State& state) {
  SimEventLoop loop;
  MemoryDevice dev("raw", 1ull << 30, 4096);
  alignas(4096) static std::byte buf[4096];
  uint64_t i = 0;
  EventLoop::ScopedCurrent scope(&loop);
  for (auto _ : state) {
    dev.read((i++ * 7919 % 4096) * 4096, std::span<std::byte>(buf, 4096), [](Status) {});
    loop.run_until_idle();
  }
}

BENCHMARK(BM_RawMemoryRead);
BENCHMARK(BM_ReadHitWt);
BENCHMARK(BM_WriteHitWb);
BENCHMARK(BM_WriteHitWt);

}  // namespace
}  // namespace tiercache

BENCHMARK_MAIN();
