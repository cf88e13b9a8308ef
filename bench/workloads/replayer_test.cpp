#include "bench/workloads/replayer.h"

#include <gtest/gtest.h>

#include "cachelib/device/models/hdd_model.h"
#include "cachelib/common/sim_event_loop.h"
#include "cachelib/device/device_wrapper.h"
#include "cachelib/device/memory_device.h"

namespace tiercache::bench {
namespace {

using std::chrono::milliseconds;

// Completes every request a fixed time after submission; records submission offsets.
class FixedLatencyDevice final : public DeviceWrapper {
 public:
  FixedLatencyDevice(Device& target, Nanos latency) : DeviceWrapper(target), latency_(latency) {}
  std::vector<uint64_t> offsets;

 protected:
  void read_impl(uint64_t offset, std::span<std::byte> buf, IoCallback cb) override {
    offsets.push_back(offset);
    DeviceWrapper::read_impl(offset, buf, delayed(std::move(cb)));
  }
  void write_impl(uint64_t offset, std::span<const std::byte> buf, WriteFlags f,
                  IoCallback cb) override {
    offsets.push_back(offset);
    DeviceWrapper::write_impl(offset, buf, f, delayed(std::move(cb)));
  }

 private:
  IoCallback delayed(IoCallback cb) {
    EventLoop* loop = EventLoop::current();
    const Nanos when = loop->clock().now() + latency_;
    return [loop, when, cb = std::move(cb)](Status s) {
      loop->schedule_at(when, [cb, s] { cb(s); });
    };
  }
  Nanos latency_;
};

ReplayStats Replay(SimEventLoop& loop, Device& dev, const Trace& trace) {
  Replayer r(dev, trace);
  std::optional<ReplayStats> out;
  {
    EventLoop::ScopedCurrent scope(&loop);
    r.start([&](const ReplayStats& s) { out = s; });
  }
  loop.run_until([&] { return out.has_value(); });
  EXPECT_TRUE(r.finished());
  return out.value_or(ReplayStats{});
}

Trace Reads(int n, uint32_t qd, Nanos think = Nanos(0)) {
  Trace t;
  t.name = "reads";
  for (int i = 0; i < n; ++i) t.records.push_back({TraceOp::kRead, uint64_t(i) * 4096, 4096, -1, think});
  SetQueueDepth(&t.records, qd);
  return t;
}

TEST(ReplayerTest, QueueDepthBoundsConcurrency) {
  SimEventLoop loop;
  MemoryDevice mem("m", 1 << 20);
  FixedLatencyDevice dev(mem, milliseconds(1));
  EXPECT_EQ(Replay(loop, dev, Reads(8, 1)).elapsed, milliseconds(8));
  EXPECT_EQ(Replay(loop, dev, Reads(8, 4)).elapsed, milliseconds(2));
  auto s = Replay(loop, dev, Reads(8, 8));
  EXPECT_EQ(s.elapsed, milliseconds(1));
  EXPECT_EQ(s.ops, 8u);
  EXPECT_EQ(s.reads, 8u);
  EXPECT_EQ(s.bytes_read, 8u * 4096);
  EXPECT_DOUBLE_EQ(s.mean_latency_us(), 1000.0);
  EXPECT_DOUBLE_EQ(s.iops(), 8000.0);
  EXPECT_DOUBLE_EQ(s.mb_per_s(), 8 * 4096 / 1e6 / 1e-3);
}

TEST(ReplayerTest, CompletionTimesAreRelativeToTheStart) {
  SimEventLoop loop;
  loop.run_for(milliseconds(50));  // the replay does not start at clock 0
  MemoryDevice mem("m", 1 << 20);
  FixedLatencyDevice dev(mem, milliseconds(1));
  const Trace t = Reads(5, 2);
  Replayer r(dev, t);
  bool done = false;
  {
    EventLoop::ScopedCurrent scope(&loop);
    r.start([&](const ReplayStats&) { done = true; });
  }
  EXPECT_EQ(r.completion_times(), std::vector<Nanos>(5, Nanos(-1)));
  loop.run_until([&] { return done; });
  // QD2 at 1 ms each: 0 and 1 finish at 1 ms, 2 and 3 at 2 ms, 4 at 3 ms.
  EXPECT_EQ(r.completion_times(), (std::vector<Nanos>{milliseconds(1), milliseconds(1),
                                                      milliseconds(2), milliseconds(2),
                                                      milliseconds(3)}));
}

TEST(ReplayerTest, ThinkTimeCountsFromTheLaterOfIssueAndDependency) {
  SimEventLoop loop;
  MemoryDevice mem("m", 1 << 20);
  FixedLatencyDevice dev(mem, milliseconds(1));
  // QD1: each request waits for the previous completion, then thinks 2 ms: 3 x (2 + 1) ms.
  EXPECT_EQ(Replay(loop, dev, Reads(3, 1, milliseconds(2))).elapsed, milliseconds(9));
  // No dependencies: each thinks 2 ms after the previous issue: last issued at 6 ms, done at 7.
  EXPECT_EQ(Replay(loop, dev, Reads(3, 100, milliseconds(2))).elapsed, milliseconds(7));
}

TEST(ReplayerTest, KeepsRecordedOrderAlignsAndWraps) {
  SimEventLoop loop;
  MemoryDevice mem("m", 1 << 20, 512);
  FixedLatencyDevice dev(mem, milliseconds(1));
  Trace t;
  t.name = "odd";
  t.records = {{TraceOp::kWrite, 1000, 100},         // -> [512, 1536)
               {TraceOp::kRead, (1 << 20) + 4096, 4096},  // past the end: wraps to 4096
               {TraceOp::kRead, (1 << 20) - 512, 4096},   // straddles the end: pulled inside
               {TraceOp::kFlush, 0, 0, 0}};
  auto s = Replay(loop, dev, t);
  EXPECT_EQ(dev.offsets, (std::vector<uint64_t>{512, 4096, (1 << 20) - 4096}));
  EXPECT_EQ(s.bytes_written, 1024u);
  EXPECT_EQ(s.flushes, 1u);
  EXPECT_EQ(s.errors, 0u);
  // The write carried the seeded pattern, not zeros.
  std::vector<std::byte> back(1024);
  mem.read_now(512, back);
  EXPECT_NE(std::count(back.begin(), back.end(), std::byte{0}), 1024);
}

TEST(ReplayerTest, ErrorsAreCountedNotFatal) {
  SimEventLoop loop;
  MemoryDevice mem("m", 1 << 20, 4096);
  Trace t;
  t.name = "err";
  t.records = {{TraceOp::kDiscard, 0, 4096}, {TraceOp::kRead, 0, 4096}};
  auto s = Replay(loop, mem, t);
  EXPECT_EQ(s.ops, 2u);
  EXPECT_EQ(s.errors, 0u);
  Trace empty;
  EXPECT_EQ(Replay(loop, mem, empty).ops, 0u);
}

TEST(ReplayerTest, SameSeedSameNumbersOnTheHddModel) {
  auto run = [] {
    SimEventLoop loop;
    MemoryDevice mem("hdd", 1ull << 40, 512);
    auto hdd = HddModel::Create(mem, HddParams{}, 42).value();
    Trace t;
    t.name = "mix";
    for (uint64_t i = 0; i < 300; ++i) {
      t.records.push_back({i % 7 == 0 ? TraceOp::kWrite : TraceOp::kRead,
                           (i * 7919 % 1000) << 26, 4096 * (1 + i % 4)});
    }
    SetQueueDepth(&t.records, 4);
    return Replay(loop, *hdd, t);
  };
  const ReplayStats a = run(), b = run();
  EXPECT_EQ(a.elapsed, b.elapsed);
  EXPECT_EQ(a.total_latency, b.total_latency);
  EXPECT_GT(a.elapsed, milliseconds(300));  // random 4-16 KiB I/O on a disk: milliseconds each
}

}  // namespace
}  // namespace tiercache::bench
