#include "tools/top_command.h"

#include <gtest/gtest.h>

namespace tiercache {
namespace {

ControlJson Stats(const char* counters, const LatencySnapshot& hit, const LatencySnapshot& miss) {
  ControlJson stats = ControlJson::parse(counters);
  CacheLatency latency;
  latency.hit = hit;
  latency.miss = miss;
  stats["latency"] = LatencyToJson(latency);
  return stats;
}

// Two replies 2 s apart: 40 reads (30 hits), 20 writes, 4 KiB each; 100 hits under 10 us and
// 1000 misses between 5 and 10 ms in between.
TEST(TopCommandTest, FrameFromTwoReplies) {
  LatencySnapshot hit_before, hit_after, miss_after;
  hit_before.buckets[0] = 10;
  hit_after.buckets[0] = 110;
  miss_after.buckets[9] = 1000;
  const ControlJson before = Stats(
      R"({"cache_name":"ssd.img","health":"ok","read_hits":10,"read_misses":5,"write_hits":3,)"
      R"("read_hit_bytes":40960,"read_miss_bytes":20480,"write_hit_bytes":12288,)"
      R"("dirty_sectors":1})",
      hit_before, LatencySnapshot());
  const ControlJson after = Stats(
      R"({"cache_name":"ssd.img","health":"degraded","read_hits":40,"read_misses":12,)"
      R"("read_partial_hits":2,"read_bypasses":1,"write_hits":22,"write_bypasses":1,)"
      R"("read_hit_bytes":163840,"read_miss_bytes":61440,"write_hit_bytes":90112,)"
      R"("write_miss_bytes":4096,"dirty_sectors":256})",
      hit_after, miss_after);
  const TopFrame f = ComputeTopFrame(before, after, 2.0);
  EXPECT_EQ(f.reads, 40u);  // 30 hits, 2 partial, 7 misses, 1 bypass
  EXPECT_EQ(f.writes, 20u);
  EXPECT_EQ(f.read_hits, 30u);
  EXPECT_EQ(f.read_bytes, 163840u);
  EXPECT_EQ(f.read_hit_bytes, 122880u);
  EXPECT_EQ(f.write_bytes, 81920u);
  EXPECT_EQ(f.dirty_bytes, 1048576u);
  EXPECT_EQ(f.latency[0].count(), 100u);
  EXPECT_EQ(f.latency[0].buckets[0], 100u);
  EXPECT_EQ(f.latency[1].count(), 1000u);
  EXPECT_EQ(f.latency[2].count(), 0u);
  EXPECT_EQ(RenderTopFrame(f),
            "tiercache top: ssd.img (health degraded), last 2.0 s\n"
            "IOPS:       read 20.0, write 10.0\n"
            "MB/s:       read 0.08, write 0.04\n"
            "hit ratio:  75.0% of reads, 75.0% of read bytes\n"
            "dirty:      1 MiB\n"
            "latency:    hit   p50 5 us, p99 10 us, p99.9 10 us (100 requests)\n"
            "            miss  p50 7.50 ms, p99 9.95 ms, p99.9 9.99 ms (1000 requests)\n"
            "            write no requests\n"
            "            flush no requests\n");
}

// A restarted daemon's counters start again from 0: the frame shows 0, not a wrap-around.
TEST(TopCommandTest, CountersThatWentDownCountAsZero) {
  const TopFrame f = ComputeTopFrame(ControlJson::parse(R"({"read_hits":50,"write_hits":9})"),
                                     ControlJson::parse(R"({"read_hits":3})"), 1.0);
  EXPECT_EQ(f.reads, 0u);
  EXPECT_EQ(f.writes, 0u);
  EXPECT_EQ(f.cache_name, "?");
  const std::string text = RenderTopFrame(ComputeTopFrame(ControlJson(), ControlJson(), 0));
  EXPECT_EQ(text.substr(0, text.find("hit ratio")),
            "tiercache top: ? (health ?), last 0.0 s\n"
            "IOPS:       read -, write -\n"
            "MB/s:       read -, write -\n");
}

}  // namespace
}  // namespace tiercache
