// ReplayPlan: the referee's access model (every 4 KiB block a request overlaps) and the requests
// the cache can take (aligned, at most 32 MiB).
#include "bench/sim/replay_plan.h"

#include <gtest/gtest.h>

namespace tiercache::bench {
namespace {

TEST(ReplayPlanTest, WidensReadsAndWritesNarrowsDiscards) {
  Trace t{"t",
          {{TraceOp::kRead, 512, 4096},           // blocks 0 and 1
           {TraceOp::kWrite, 8192, 4096},         // block 2
           {TraceOp::kFlush, 0, 0},
           {TraceOp::kDiscard, 1024, 3 * 4096},   // [1024, 13312): only blocks 1 and 2 whole
           {TraceOp::kDiscard, 4096 + 512, 1024}}};  // no whole block: nothing submitted
  ReplayPlan plan(t);
  const std::vector<SimRequest> want = {{TraceOp::kRead, 0, 8192},
                                        {TraceOp::kWrite, 8192, 4096},
                                        {TraceOp::kFlush, 0, 0},
                                        {TraceOp::kDiscard, 4096, 8192}};
  EXPECT_EQ(plan.requests(), want);
  EXPECT_EQ(plan.trace_requests(), 5u);
  EXPECT_EQ(plan.block_accesses(), 3u);
  EXPECT_EQ(plan.core_bytes(), 3u * 4096);
  EXPECT_EQ(plan.max_length(), 8192u);
}

TEST(ReplayPlanTest, SplitsAt32MiB) {
  const uint64_t mib = 1 << 20;
  Trace t{"t", {{TraceOp::kRead, 4096, 70 * mib}}};
  ReplayPlan plan(t);
  const std::vector<SimRequest> want = {{TraceOp::kRead, 4096, 32 * mib},
                                        {TraceOp::kRead, 4096 + 32 * mib, 32 * mib},
                                        {TraceOp::kRead, 4096 + 64 * mib, 6 * mib}};
  EXPECT_EQ(plan.requests(), want);
  EXPECT_EQ(plan.trace_requests(), 1u);
  EXPECT_EQ(plan.block_accesses(), 70u * 256);
  EXPECT_EQ(plan.core_bytes(), 4096 + 70 * mib);
  EXPECT_EQ(plan.max_length(), 32 * mib);
}

TEST(ReplayPlanTest, EmptyTraceHasOneBlockCore) {
  ReplayPlan plan(Trace{"empty", {}});
  EXPECT_TRUE(plan.requests().empty());
  EXPECT_EQ(plan.core_bytes(), 4096u);
  EXPECT_EQ(plan.block_accesses(), 0u);
}

}  // namespace
}  // namespace tiercache::bench
