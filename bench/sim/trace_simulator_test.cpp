// TraceSimulator against (a) the engine on ordinary MemoryDevices replaying the same shipped trace
// (every counter equal), and (b) a textbook LRU sequence worked out by hand.
#include "bench/sim/trace_simulator.h"

#include <gtest/gtest.h>

#include <cstring>

#include "bench/workloads/trace_import.h"
#include "tests/support/cache_fixture.h"

namespace tiercache::bench {
namespace {

using testing::CacheHarness;

// Every CacheCounters field, named, so a mismatch says which.
std::vector<std::pair<const char*, uint64_t>> Fields(const CacheCounters& c) {
  return {{"read_hits", c.read_hits},
          {"read_partial_hits", c.read_partial_hits},
          {"read_misses", c.read_misses},
          {"write_hits", c.write_hits},
          {"write_misses", c.write_misses},
          {"read_bypasses", c.read_bypasses},
          {"write_bypasses", c.write_bypasses},
          {"read_hit_bytes", c.read_hit_bytes},
          {"read_miss_bytes", c.read_miss_bytes},
          {"write_hit_bytes", c.write_hit_bytes},
          {"write_miss_bytes", c.write_miss_bytes},
          {"bytes_read_ssd", c.bytes_read_ssd},
          {"bytes_written_ssd", c.bytes_written_ssd},
          {"bytes_read_core", c.bytes_read_core},
          {"bytes_written_core", c.bytes_written_core},
          {"lines_total", c.lines_total},
          {"lines_used", c.lines_used},
          {"lines_dirty", c.lines_dirty},
          {"dirty_sectors", c.dirty_sectors},
          {"lines_untrusted", c.lines_untrusted},
          {"evictions", c.evictions},
          {"cleaner_writes", c.cleaner_writes},
          {"cleaner_write_errors", c.cleaner_write_errors},
          {"cleaned_lines", c.cleaned_lines},
          {"fill_skipped_bytes", c.fill_skipped_bytes},
          {"errors", c.errors},
          {"flushes", c.flushes},
          {"discards", c.discards},
          {"write_zeroes", c.write_zeroes},
          {"ssd_read_errors", c.ssd_read_errors},
          {"ssd_write_errors", c.ssd_write_errors},
          {"ssd_persist_errors", c.ssd_persist_errors},
          {"ssd_failovers", c.ssd_failovers}};
}
// The list above must name every field: CacheCounters is nothing but uint64_t counters.
static_assert(sizeof(CacheCounters) == 33 * sizeof(uint64_t), "a counter was added: list it");

// The same plan through a Cache on MemoryDevices (real data, written with a pattern), QD1,
// running the loop until idle after each request, as the simulator does.
SimResult ReplayOnMemoryDevices(const Trace& trace, const SimCase& c) {
  const ReplayPlan plan(trace);
  CacheHarness h(SimSsdLayout(c.cache_bytes).required_size(), plan.core_bytes(),
                 c.format_options(), c.cache_options(nullptr));
  h.open();
  std::vector<std::byte> buf(plan.max_length());
  for (const SimRequest& r : plan.requests()) {
    Status s;
    switch (r.op) {
      case TraceOp::kRead:
        s = testing::SyncRead(h.loop, *h.cache, r.offset, std::span(buf.data(), r.length));
        break;
      case TraceOp::kWrite:
        s = testing::SyncWrite(h.loop, *h.cache, r.offset, testing::Pattern(7, r.offset, r.length));
        break;
      case TraceOp::kFlush: s = testing::SyncFlush(h.loop, *h.cache); break;
      case TraceOp::kDiscard: s = testing::SyncDiscard(h.loop, *h.cache, r.offset, r.length); break;
    }
    EXPECT_TRUE(s.ok()) << s.ToString();
    h.loop.run_until_idle();
  }
  SimResult out;
  out.counters = h.cache->counters();
  out.policies = h.cache->policy_report();
  EXPECT_TRUE(testing::SyncClose(h.loop, *h.cache).ok());
  return out;
}

SimCase Case(uint64_t cache_bytes, const char* admission, const char* replacement,
             CacheMode mode, uint32_t shards, bool sequential_bypass) {
  SimCase c{.cache_bytes = cache_bytes, .admission = admission, .replacement = replacement,
            .mode = mode, .shards = shards, .sequential = std::nullopt};
  if (!sequential_bypass) c.sequential = SequentialOptions{.enabled = false};
  return c;
}

class ShippedTraceTest : public ::testing::TestWithParam<SimCase> {};

TEST_P(ShippedTraceTest, SimAgreesWithEngineOnMemoryDevices) {
  Result<Trace> trace = ImportTraceFile("fio", TIERCACHE_TRACES_DIR "/realapp.iolog", "realapp");
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  const SimCase& c = GetParam();
  Result<SimResult> sim = TraceSimulator(*trace).run(c);
  ASSERT_TRUE(sim.ok()) << sim.status().ToString();
  const SimResult engine = ReplayOnMemoryDevices(*trace, c);
  const auto got = Fields(sim->counters), want = Fields(engine.counters);
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i].second, want[i].second) << got[i].first;
  EXPECT_EQ(sim->policies.admission, c.admission);
  EXPECT_EQ(sim->policies.replacement, c.replacement);
  EXPECT_EQ(sim->policies.admission_counters, engine.policies.admission_counters);
  EXPECT_EQ(sim->policies.replacement_counters, engine.policies.replacement_counters);
  EXPECT_EQ(sim->policies.sequential_counters, engine.policies.sequential_counters);
  EXPECT_EQ(sim->policies.index_bytes, engine.policies.index_bytes);
  // The trace has 1083 requests (1015 reads, 51 writes, 17 syncs) touching 9998 blocks, and the
  // cache is far smaller than its 9832 distinct blocks: the replay must have evicted.
  EXPECT_EQ(sim->requests, 1083u);
  EXPECT_EQ(sim->block_accesses, 9998u);
  EXPECT_GT(sim->counters.evictions, 0u);
  EXPECT_EQ(sim->block_misses() * 4096,
            engine.counters.read_miss_bytes + engine.counters.write_miss_bytes);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ShippedTraceTest,
    ::testing::Values(Case(4 << 20, "always", "s3fifo", CacheMode::kWriteThrough, 16, true),
                      Case(2 << 20, "always", "lru", CacheMode::kWriteBack, 1, false),
                      Case(1 << 20, "always", "clock", CacheMode::kWriteAround, 4, true),
                      Case(3 << 20, "always", "sieve", CacheMode::kWriteThrough, 2, false),
                      Case(2 << 20, "adaptive", "epoch-lru", CacheMode::kWriteBack, 4, true)));

// A 16-line, fully associative LRU cache (one shard, every miss admitted, no sequential bypass)
// reading single blocks. LRU order is listed oldest first after each step.
//   0..15   16 misses, fill the cache          order 0 1 2 ... 15
//   0, 1    2 hits                             order 2 3 ... 15 0 1
//   16      miss, evicts 2 (least recent)      order 3 ... 15 0 1 16
//   0       hit (FIFO would have evicted 0)    order 3 ... 15 1 16 0
//   2       miss, evicts 3                     order 4 ... 15 1 16 0 2
//   1       hit                                order 4 ... 15 16 0 2 1
//   3       miss, evicts 4                     order 5 ... 15 16 0 2 1 3
//   5       hit                                order 6 ... 15 16 0 2 1 3 5
//   4       miss, evicts 6                     order 7 ... 15 16 0 2 1 3 5 4
//   6       miss, evicts 7                     order 8 ... 15 16 0 2 1 3 5 4 6
// 26 accesses: 21 misses (16 cold + 16, 2, 3, 4, 6), 5 hits, 5 evictions.
TEST(TraceSimulatorTest, LruMatchesTheTextbookOnAHandTrace) {
  std::vector<uint64_t> blocks;
  for (uint64_t b = 0; b < 16; ++b) blocks.push_back(b);
  for (uint64_t b : {0, 1, 16, 0, 2, 1, 3, 5, 4, 6}) blocks.push_back(b);
  Trace trace{"hand", {}};
  for (uint64_t b : blocks) trace.records.push_back({TraceOp::kRead, b * 4096, 4096});
  const SimCase c = Case(16 * 4096, "always", "lru", CacheMode::kWriteThrough, 1, false);
  Result<SimResult> r = TraceSimulator(trace).run(c);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->counters.lines_total, 16u);
  EXPECT_EQ(r->block_accesses, 26u);
  EXPECT_EQ(r->block_misses(), 21u);
  EXPECT_EQ(r->counters.read_hit_bytes, 5u * 4096);
  EXPECT_EQ(r->counters.evictions, 5u);
  EXPECT_EQ(r->ssd_bytes_written(), 21u * 4096);  // every miss is filled
  EXPECT_EQ(r->hdd_bytes_read(), 21u * 4096);
  EXPECT_DOUBLE_EQ(r->miss_ratio(), 21.0 / 26.0);
}

TEST(TraceSimulatorTest, UnknownPolicyFailsWithTheEnginesMessage) {
  Trace trace{"t", {{TraceOp::kRead, 0, 4096}}};
  SimCase c = Case(16 * 4096, "always", "mru", CacheMode::kWriteThrough, 1, true);
  Result<SimResult> r = TraceSimulator(trace).run(c);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), c.policies().validate().message());
}

}  // namespace
}  // namespace tiercache::bench
