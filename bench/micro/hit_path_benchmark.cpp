// CPU cost of the cache hit path on memory devices (target: <= 1 us per 4 KiB read or write hit).
// Run: build/bench/micro/hit_path_benchmark  (Google Benchmark; reports ns of CPU per request and
// allocs_per_req, the operator new calls per request: 0 on the hit paths).
// Instructions per request (less noisy than time): TC_BENCH_ITERATIONS=20000 valgrind
//   --tool=callgrind --collect-atstart=no --toggle-collect='*ServeHits*' hit_path_benchmark
//   --benchmark_filter=ReadHitWt, then the total Ir / 20000.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "cachelib/common/counting_new.h"
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
  // Every block cached by the warm-up: no admission test, no sequential-stream bypass.
  o.policies.admission = "always";
  o.policies.sequential = SequentialOptions{.enabled = false};
  // No trust rounds: run_until_idle() jumps virtual time to the next round after every request,
  // so each write would pay for a round (a core flush and a metadata persist, about 360k
  // instructions) and the persist the next write to a trusted line waits for. At real rates one
  // round covers every write of trust_interval (5 s); neither is hit-path work.
  o.trust_interval = Nanos(0);
  auto h = std::make_unique<testing::CacheHarness>((kLines + 64) * kLine, 1ull << 30, f, o);
  h->open();
  std::vector<std::byte> line(kLine, std::byte{1});
  for (uint64_t i = 0; i < kLines; ++i) (void)testing::SyncWrite(h->loop, *h->cache, i * kLine, line);
  std::vector<std::byte> buf(kLine);
  for (uint64_t i = 0; i < kLines; ++i) (void)testing::SyncRead(h->loop, *h->cache, i * kLine, buf);
  h->loop.run_until_idle();
  return h;
}

// The timed loop, apart so that callgrind can count just its instructions.
[[gnu::noinline]] uint64_t ServeHits(benchmark::State& state, testing::CacheHarness* h,
                                     bool write) {
  alignas(4096) static std::byte buf[4096];
  uint64_t i = 0, done = 0;
  for (auto _ : state) {
    uint64_t off = (i++ * 7919 % (kLines * 16)) * 4096;
    if (write) {
      h->cache->write(off, std::span<const std::byte>(buf, 4096), {}, [&](Status) { ++done; });
    } else {
      h->cache->read(off, std::span<std::byte>(buf, 4096), [&](Status) { ++done; });
    }
    h->loop.run_until_idle();
  }
  return done;
}

void RunHits(benchmark::State& state, CacheMode mode, bool write) {
  auto h = WarmCache(mode);
  EventLoop::ScopedCurrent scope(&h->loop);
  const CacheCounters b = h->cache->counters();
  const uint64_t allocs_before = OperatorNewCalls();
  const uint64_t done = ServeHits(state, h.get(), write);
  const uint64_t allocs = OperatorNewCalls() - allocs_before;
  const CacheCounters a = h->cache->counters();
  // Of the timed requests only.
  const uint64_t hits = write ? a.write_hits - b.write_hits : a.read_hits - b.read_hits;
  state.counters["hit_ratio"] = double(hits) / double(std::max<uint64_t>(done, 1));
  state.counters["allocs_per_req"] = double(allocs) / double(std::max<uint64_t>(done, 1));
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
  const uint64_t allocs_before = OperatorNewCalls();
  for (auto _ : state) {
    dev.read((i++ * 7919 % 4096) * 4096, std::span<std::byte>(buf, 4096), [](Status) {});
    loop.run_until_idle();
  }
  state.counters["allocs_per_req"] =
      double(OperatorNewCalls() - allocs_before) / double(std::max<int64_t>(state.iterations(), 1));
}

}  // namespace
}  // namespace tiercache

int main(int argc, char** argv) {
  using namespace tiercache;
  benchmark::Initialize(&argc, argv);
  // A fixed count (one run per case) when set: instruction counts per request under callgrind.
  const char* fixed = std::getenv("TC_BENCH_ITERATIONS");
  for (auto [name, fn] : {std::pair{"BM_RawMemoryRead", &BM_RawMemoryRead},
                          std::pair{"BM_ReadHitWt", &BM_ReadHitWt},
                          std::pair{"BM_WriteHitWb", &BM_WriteHitWb},
                          std::pair{"BM_WriteHitWt", &BM_WriteHitWt}}) {
    auto* b = benchmark::RegisterBenchmark(name, fn);
    if (fixed != nullptr) b->Iterations(std::atoll(fixed));
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
