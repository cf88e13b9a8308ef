// What a block move costs the line index (a write-back write over a trusted line moves its block
// to a free line; the old line waits in limbo for its free record): the entry re-pointed in place
// (LineIndex::relink, what Shard does) against the erase and insert it replaced, side by side on
// a full shard. Each move also indexes the old line under its limbo key, and every 64 moves the
// limbo lines are erased and freed, as a persist releases them.
// Run: build/bench/micro/line_index_benchmark  (ns of CPU per move; lines = the shard's lines:
// 16384 for a 1 GiB cache of 4 KiB lines in 16 shards).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "cachelib/engine/line_index.h"

namespace tiercache {
namespace {

constexpr uint64_t kLimboKey = uint64_t{1} << 47;  // as Shard's
constexpr size_t kLimboBatch = 64;

struct FullShard {
  explicit FullShard(uint32_t lines) : slots(lines, 1), index(lines) {
    std::mt19937_64 rng(1);
    const uint32_t reserve = lines / 32;  // free lines for the moves to take
    for (uint32_t s = 0; s < lines; ++s) {
      if (s < lines - reserve) {
        const uint64_t key = rng() % (uint64_t{1} << 40);  // distinct with near certainty
        slots.assign(s, key);
        index.insert(key, s);
        used.push_back(s);
      } else {
        free.push_back(s);
      }
    }
  }

  // Moves the block of a random used line to a free line, with `relink` or erase and insert.
  void move(bool relink, std::mt19937_64& rng) {
    uint32_t& from = used[rng() % used.size()];
    const uint32_t to = free.back();
    free.pop_back();
    const uint64_t key = slots.core_line(from);
    if (relink) {
      index.relink(key, from, to);
    } else {
      index.erase(key, from, slots);
      index.insert(key, to);
    }
    slots.assign(to, key);
    slots.assign(from, key | kLimboKey);
    index.insert(key | kLimboKey, from);
    limbo.push_back(from);
    from = to;
    if (limbo.size() == kLimboBatch) {
      for (uint32_t s : limbo) {
        index.erase(slots.core_line(s), s, slots);
        slots.clear(s);
        free.push_back(s);
      }
      limbo.clear();
    }
  }

  SlotTable slots;
  LineIndex index;
  std::vector<uint32_t> used, free, limbo;
};

void RunMoves(benchmark::State& state, bool relink) {
  FullShard shard(uint32_t(state.range(0)));
  std::mt19937_64 rng(2);
  for (auto _ : state) shard.move(relink, rng);
  state.SetItemsProcessed(state.iterations());
}

void BM_MoveByEraseAndInsert(benchmark::State& s) { RunMoves(s, false); }
void BM_MoveByRelink(benchmark::State& s) { RunMoves(s, true); }

BENCHMARK(BM_MoveByEraseAndInsert)->Arg(16384)->Arg(1 << 21);
BENCHMARK(BM_MoveByRelink)->Arg(16384)->Arg(1 << 21);

}  // namespace
}  // namespace tiercache

BENCHMARK_MAIN();
