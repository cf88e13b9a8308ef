#include "cachelib/device/models/hdd_model.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>

#include "cachelib/device/models/closed_loop_test_util.h"
#include "cachelib/common/epoll_event_loop.h"
#include "cachelib/device/memory_device.h"
#include "tests/support/sync_io.h"

namespace tiercache {
namespace {

using testing::Request;
using testing::RunClosedLoop;

// Deterministic 64-bit generator (splitmix64), independent of the standard library.
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

struct Rig {
  explicit Rig(HddParams p = {}, uint64_t seed = 1, uint64_t size = 0)
      : mem("hdd", size ? size : p.capacity_bytes, 512),
        model(std::move(HddModel::Create(mem, p, seed).value())) {}
  MemoryDevice mem;
  std::unique_ptr<HddModel> model;
  SimEventLoop loop;
};

std::function<Request(uint64_t)> RandomOver(uint64_t bytes, uint64_t len, bool write,
                                            uint64_t seed) {
  auto rng = std::make_shared<Rng>(Rng{seed});
  return [=](uint64_t) { return Request{write, rng->next() % (bytes / len) * len, len}; };
}

std::function<Request(uint64_t)> Sequential(uint64_t start, uint64_t len, bool write) {
  return [=](uint64_t i) { return Request{write, start + i * len, len}; };
}

TEST(HddModelTest, RandomReadsQd1OverWholeDiskLandAt75To90Iops) {
  Rig rig;
  auto r = RunClosedLoop(rig.loop, *rig.model, 1, 3000,
                         RandomOver(rig.mem.size(), 4096, false, 7));
  EXPECT_EQ(r.errors, 0u);
  std::printf("hdd7200 4K random read QD1, whole disk: %.1f IOPS\n", r.iops());
  EXPECT_GE(r.iops(), 75.0);
  EXPECT_LE(r.iops(), 90.0);
  EXPECT_EQ(rig.model->counters().media_ops, 3000u);
}

TEST(HddModelTest, Qd32ReorderingAtLeastDoublesQd1) {
  Rig one, many;
  auto qd1 = RunClosedLoop(one.loop, *one.model, 1, 3000, RandomOver(one.mem.size(), 4096, false, 9));
  auto qd32 = RunClosedLoop(many.loop, *many.model, 32, 3000,
                            RandomOver(many.mem.size(), 4096, false, 9));
  std::printf("hdd7200 4K random read QD32, whole disk: %.1f IOPS (%.2fx QD1)\n", qd32.iops(),
              qd32.iops() / qd1.iops());
  EXPECT_GE(qd32.iops(), 2.0 * qd1.iops()) << "qd1 " << qd1.iops() << " qd32 " << qd32.iops();
}

TEST(HddModelTest, SequentialReadsRunNearTheZoneRate) {
  Rig rig;
  // Outer zone, queue depth 1: read-ahead keeps the head streaming between requests.
  auto outer = RunClosedLoop(rig.loop, *rig.model, 1, 256, Sequential(0, 1 << 20, false));
  std::printf("hdd7200 1 MiB sequential read: outer QD1 %.1f MB/s\n", outer.mb_per_s());
  EXPECT_GE(outer.mb_per_s(), 0.95 * 210);
  EXPECT_LE(outer.mb_per_s(), 210.0);
  // Inner zone, queue depth 8.
  const uint64_t inner = rig.mem.size() - (300ull << 20);
  auto in = RunClosedLoop(rig.loop, *rig.model, 8, 256, Sequential(inner, 1 << 20, false));
  std::printf("hdd7200 1 MiB sequential read: inner QD8 %.1f MB/s\n", in.mb_per_s());
  EXPECT_GE(in.mb_per_s(), 0.95 * 126);
  EXPECT_LE(in.mb_per_s(), 0.6 * 210 * 1.003);
}

TEST(HddModelTest, SmallSequentialReadsHitTheReadAheadBuffer) {
  Rig rig;
  auto r = RunClosedLoop(rig.loop, *rig.model, 1, 1024, Sequential(0, 4096, false));
  auto c = rig.model->counters();
  EXPECT_GT(c.buffer_hits + c.stream_continuations, 1000u);
  // Bounded by the 0.1 ms command overhead (41 MB/s), far from 4 KiB per turn (0.5 MB/s).
  EXPECT_GE(r.mb_per_s(), 30.0);
  EXPECT_LE(r.mb_per_s(), 4096 / 100e-6 / 1e6);
}

TEST(HddModelTest, SameSeedSameTimesDifferentSeedDifferentTimes) {
  auto run = [](uint64_t seed) {
    Rig rig({}, seed);
    return RunClosedLoop(rig.loop, *rig.model, 4, 500,
                         RandomOver(rig.mem.size(), 4096, false, 3)).elapsed;
  };
  EXPECT_EQ(run(5), run(5));
  EXPECT_NE(run(5), run(6));
}

TEST(HddModelTest, DataPassesThroughByteExact) {
  Rig rig;
  auto data = testing::Pattern(11, 1 << 20, 64 * 1024);
  ASSERT_TRUE(testing::SyncWrite(rig.loop, *rig.model, 1 << 20, data).ok());
  std::vector<std::byte> back(data.size());
  ASSERT_TRUE(testing::SyncRead(rig.loop, *rig.model, 1 << 20, back).ok());
  EXPECT_EQ(back, data);
  // The read came from the media (the write invalidated nothing buffered; nothing was read before).
  EXPECT_EQ(rig.model->counters().buffer_hits, 0u);
  // Re-reading a part of it is a buffer hit.
  std::vector<std::byte> part(4096);
  ASSERT_TRUE(testing::SyncRead(rig.loop, *rig.model, (1 << 20) + 8192, part).ok());
  EXPECT_EQ(rig.model->counters().buffer_hits, 1u);
  EXPECT_TRUE(std::equal(part.begin(), part.end(), data.begin() + 8192));
}

TEST(HddModelTest, WriteCacheAcknowledgesFastAndFlushWaitsForDestage) {
  HddParams on;
  on.write_cache_entries = 1000;
  HddParams off;
  off.write_cache = false;
  Rig cached(on), direct(off);
  auto w1 = RunClosedLoop(cached.loop, *cached.model, 1, 200,
                          RandomOver(cached.mem.size(), 4096, true, 4));
  auto w2 = RunClosedLoop(direct.loop, *direct.model, 1, 200,
                          RandomOver(direct.mem.size(), 4096, true, 4));
  // 200 x 4 KiB fits in the 32 MiB cache: each write costs overhead + link transfer only.
  EXPECT_EQ(cached.model->counters().cached_writes, 200u);
  EXPECT_LT(w1.elapsed, Nanos(200 * 120'000));
  EXPECT_GT(w2.elapsed, Nanos(200 * 5'000'000));  // every write pays seek + rotation
  // The flush returns only after all 200 writes are on the media.
  const Nanos before = cached.loop.clock().now();
  ASSERT_TRUE(testing::SyncFlush(cached.loop, *cached.model).ok());
  EXPECT_EQ(cached.model->counters().destages, 200u);
  EXPECT_GT(cached.loop.clock().now() - before, Nanos(200 * 2'000'000));
  // An empty cache flushes in one command overhead.
  const Nanos t = cached.loop.clock().now();
  ASSERT_TRUE(testing::SyncFlush(cached.loop, *cached.model).ok());
  EXPECT_EQ(cached.loop.clock().now() - t, on.command_overhead());
}

TEST(HddModelTest, FullWriteCacheThrottlesWritesToTheMedia) {
  HddParams p;
  p.write_cache_bytes = 64 * 4096;
  Rig rig(p);
  auto r = RunClosedLoop(rig.loop, *rig.model, 1, 1000, RandomOver(rig.mem.size(), 4096, true, 8));
  auto c = rig.model->counters();
  EXPECT_EQ(c.cached_writes, 1000u);
  EXPECT_GE(c.destages, 1000u - 64);
  // Sustained random writes run at destage speed (reordered among 64), far below link speed.
  EXPECT_LT(r.iops(), 400.0);
  EXPECT_GT(r.iops(), 100.0);
}

TEST(HddModelTest, WriteCacheHoldsAtMostItsEntryLimit) {
  HddParams p;
  p.write_cache_entries = 16;
  Rig rig(p);
  // 16 writes are acknowledged from the buffer, the 17th waits for a destage.
  auto r = RunClosedLoop(rig.loop, *rig.model, 1, 16, RandomOver(rig.mem.size(), 4096, true, 5));
  EXPECT_LT(r.elapsed, Nanos(16 * 200'000));
  auto one = RunClosedLoop(rig.loop, *rig.model, 1, 1, RandomOver(rig.mem.size(), 4096, true, 6));
  EXPECT_GT(one.elapsed, Nanos(1'000'000));
  EXPECT_GE(rig.model->counters().destages, 1u);
}

TEST(HddModelTest, HostLinkSerializesBufferedTransfers) {
  Rig rig;
  // 32 cached 64 KiB writes at once: the link (600 MB/s) carries them one after another.
  auto r = RunClosedLoop(rig.loop, *rig.model, 32, 32, RandomOver(rig.mem.size(), 65536, true, 2));
  EXPECT_EQ(rig.model->counters().cached_writes, 32u);
  EXPECT_GE(r.elapsed, Nanos(static_cast<int64_t>(32 * 65536 / 600e6 * 1e9)));
  EXPECT_LE(r.mb_per_s(), 600.0);
}

// A read queued behind a read of the same blocks is answered from the buffer when that one
// finishes (as drive firmware does), not by a second trip to the platter. This is what makes a
// prefetch (StreamReadahead) pay off when the stream's read arrives before it finished.
TEST(HddModelTest, QueuedReadOfBlocksJustReadIsABufferHit) {
  Rig rig;
  const uint64_t at = 200ull << 30;
  std::vector<std::byte> a(1 << 20), b(1 << 20);
  Nanos done_a{0}, done_b{0};
  {
    EventLoop::ScopedCurrent scope(&rig.loop);
    rig.model->prefetch(at, 1 << 20, [&](Status s) {
      ASSERT_TRUE(s.ok());
      done_a = rig.loop.clock().now();
    });
    rig.model->read(at, b, [&](Status s) {
      ASSERT_TRUE(s.ok());
      done_b = rig.loop.clock().now();
    });
  }
  rig.loop.run_until_idle();
  auto c = rig.model->counters();
  EXPECT_EQ(c.media_ops, 1u);  // the prefetch; the read never reached the head
  EXPECT_EQ(c.buffer_hits, 1u);
  // Right after it: 1 MiB over the 600 MB/s host link, not another seek and revolution.
  EXPECT_GT(done_b, done_a);
  EXPECT_LE(done_b - done_a, Nanos(static_cast<int64_t>((1 << 20) / 600e6 * 1e9) + 1'000'000));
}

TEST(HddModelTest, FuaWriteGoesToTheMedia) {
  Rig rig;
  auto data = testing::Pattern(2, 0, 4096);
  const Nanos t0 = rig.loop.clock().now();
  ASSERT_TRUE(testing::SyncWrite(rig.loop, *rig.model, 500ull << 30, data, {.fua = true}).ok());
  EXPECT_GT(rig.loop.clock().now() - t0, Nanos(1'000'000));
  EXPECT_EQ(rig.model->counters().cached_writes, 0u);
}

TEST(HddModelTest, RejectsInvalidParams) {
  MemoryDevice mem("m", 1 << 30);
  HddParams p;
  p.inner_ratio = 1.5;
  auto m = HddModel::Create(mem, p);
  EXPECT_EQ(m.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(m.status().message().find("inner_ratio"), std::string::npos);
}

TEST(HddModelTest, RealTimeCompletionNeverPrecedesTheModel) {
  auto lt = LoopThread::Start("hdd-test");
  ASSERT_TRUE(lt.ok());
  MemoryDevice mem("hdd", 1ull << 40, 512);
  auto model = HddModel::Create(mem, HddParams{}, 1);
  ASSERT_TRUE(model.ok());
  std::vector<std::byte> buf(4096);
  std::optional<Status> result;
  Nanos submitted{0}, completed{0};
  std::mutex mu;
  std::condition_variable cv;
  (*lt)->loop().post([&] {
    submitted = SteadyClock::instance().now();
    (*model)->read(900ull << 30, buf, [&](Status s) {
      std::lock_guard lock(mu);
      completed = SteadyClock::instance().now();
      result = s;
      cv.notify_one();
    });
  });
  std::unique_lock lock(mu);
  cv.wait(lock, [&] { return result.has_value(); });
  ASSERT_TRUE(result->ok());
  // Far from the head's start position: at least one command overhead plus a long seek.
  EXPECT_GE(completed - submitted, Nanos(5'000'000));
}

}  // namespace
}  // namespace tiercache
