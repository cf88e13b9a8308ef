#include "bench/workloads/recorded_traces.h"

#include <gtest/gtest.h>

#include <optional>

#include "bench/workloads/replayer.h"
#include "cachelib/common/sim_event_loop.h"
#include "cachelib/device/memory_device.h"

namespace tiercache::bench {
namespace {

struct OpCounts {
  uint64_t reads = 0, writes = 0, flushes = 0, discards = 0;
  uint64_t bytes_read = 0, bytes_written = 0, bytes_discarded = 0;
};

OpCounts Count(const Trace& t) {
  OpCounts c;
  for (const TraceRecord& r : t.records) {
    switch (r.op) {
      case TraceOp::kRead: ++c.reads, c.bytes_read += r.length; break;
      case TraceOp::kWrite: ++c.writes, c.bytes_written += r.length; break;
      case TraceOp::kFlush: ++c.flushes; break;
      case TraceOp::kDiscard: ++c.discards, c.bytes_discarded += r.length; break;
    }
  }
  return c;
}

// Replays `trace` on a 1 GiB in-memory volume (the recording's size) in virtual time.
ReplayStats ReplayOnVolume(const Trace& trace) {
  SimEventLoop loop;
  MemoryDevice volume("volume", 1ull << 30, 4096);
  Replayer replayer(volume, trace);
  std::optional<ReplayStats> out;
  {
    EventLoop::ScopedCurrent scope(&loop);
    replayer.start([&](const ReplayStats& s) { out = s; });
  }
  loop.run_until([&] { return out.has_value(); });
  EXPECT_TRUE(replayer.finished());
  return out.value_or(ReplayStats{});
}

// Counts from the shipped file: awk over bench/traces/realapp.iolog.
TEST(RecordedTracesTest, RealAppImportsInRecordedOrderAtQueueDepthOne) {
  auto t = LoadRecordedTrace("realapp");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->name, "realapp");
  ASSERT_EQ(t->records.size(), 1083u);
  const OpCounts c = Count(*t);
  EXPECT_EQ(c.reads, 1015u);
  EXPECT_EQ(c.writes, 51u);
  EXPECT_EQ(c.flushes, 17u);
  EXPECT_EQ(c.discards, 0u);
  EXPECT_EQ(c.bytes_read, 39571456u);
  EXPECT_EQ(c.bytes_written, 1380352u);
  // The first requests of the file: the mount's flush, then the superblock area.
  EXPECT_EQ(t->records[0], (TraceRecord{TraceOp::kFlush, 0, 0, -1, Nanos(0)}));
  EXPECT_EQ(t->records[1], (TraceRecord{TraceOp::kRead, 0, 16384, 0, Nanos(0)}));
  for (size_t i = 1; i < t->records.size(); ++i) {
    ASSERT_EQ(t->records[i].dep, static_cast<int64_t>(i) - 1) << "record " << i;
  }
}

TEST(RecordedTracesTest, RealAppReplaysEveryRecord) {
  auto t = LoadRecordedTrace("realapp");
  ASSERT_TRUE(t.ok());
  const ReplayStats s = ReplayOnVolume(*t);
  EXPECT_EQ(s.errors, 0u) << s.first_error.ToString();
  EXPECT_EQ(s.ops, 1083u);
  EXPECT_EQ(s.reads, 1015u);
  EXPECT_EQ(s.writes, 51u);
  EXPECT_EQ(s.flushes, 17u);
  EXPECT_EQ(s.bytes_read, 39571456u);
  EXPECT_EQ(s.bytes_written, 1380352u);
}

TEST(RecordedTracesTest, InstallImportsAndReplays) {
  auto t = LoadRecordedTrace("realapp-install");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_EQ(t->records.size(), 936u);
  const OpCounts c = Count(*t);
  EXPECT_EQ(c.reads, 6u);
  EXPECT_EQ(c.writes, 913u);
  EXPECT_EQ(c.flushes, 15u);
  EXPECT_EQ(c.discards, 2u);
  EXPECT_EQ(c.bytes_written, 168435712u);
  EXPECT_EQ(c.bytes_discarded, 1073745920u);
  const ReplayStats s = ReplayOnVolume(*t);
  EXPECT_EQ(s.errors, 0u) << s.first_error.ToString();
  EXPECT_EQ(s.ops, 936u);
  EXPECT_EQ(s.discards, 2u);
  EXPECT_EQ(s.bytes_written, 168435712u);
}

TEST(RecordedTracesTest, EveryShippedTraceLoadsAndUnknownIsNotFound) {
  ASSERT_EQ(RecordedTraces().size(), 2u);
  for (const RecordedTrace& r : RecordedTraces()) {
    EXPECT_TRUE(LoadRecordedTrace(r.name).ok()) << r.name;
  }
  EXPECT_EQ(LoadRecordedTrace("nope").status().code(), Status::Code::kNotFound);
}

}  // namespace
}  // namespace tiercache::bench
