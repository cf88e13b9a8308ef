#include "cachelib/device/models/ssd_model.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "cachelib/device/models/closed_loop_test_util.h"
#include "cachelib/device/models/model_profiles.h"
#include "cachelib/device/memory_device.h"
#include "tests/support/sync_io.h"

namespace tiercache {
namespace {

using testing::Request;
using testing::RunClosedLoop;

struct Rig {
  explicit Rig(const SsdParams& p) : mem("ssd", 64ull << 30, 512),
      model(std::move(SsdModel::Create(mem, p).value())) {}
  MemoryDevice mem;
  std::unique_ptr<SsdModel> model;
  SimEventLoop loop;
};

SsdParams Profile(const char* name) {
  return ModelProfiles::Builtin().value().find(name).value().ssd;
}

std::function<Request(uint64_t)> Random4k(bool write) {
  return [write](uint64_t i) {
    uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 29)) * 0xBF58476D1CE4E5B9ull;
    return Request{write, (z >> 20) % (16ull << 18) * 4096, 4096};
  };
}

std::function<Request(uint64_t)> Seq1m(bool write) {
  return [write](uint64_t i) { return Request{write, i << 20, 1 << 20}; };
}

TEST(SsdModelTest, SataProfileMatchesItsDatasheet) {
  const SsdParams p = Profile("sata-ssd");
  Rig a(p), b(p), c(p), d(p), e(p), f(p);
  auto rd1 = RunClosedLoop(a.loop, *a.model, 1, 2000, Random4k(false));
  auto rd32 = RunClosedLoop(b.loop, *b.model, 32, 20000, Random4k(false));
  auto seqr = RunClosedLoop(c.loop, *c.model, 8, 512, Seq1m(false));
  auto seqw = RunClosedLoop(d.loop, *d.model, 8, 512, Seq1m(true));
  auto wr1 = RunClosedLoop(e.loop, *e.model, 1, 2000, Random4k(true));
  auto wr32 = RunClosedLoop(f.loop, *f.model, 32, 20000, Random4k(true));
  std::printf("sata-ssd: 4K read QD1 %.0f IOPS, QD32 %.0f IOPS; 4K write QD1 %.0f, QD32 %.0f IOPS; "
              "1 MiB QD8 read %.1f MB/s, write %.1f MB/s\n",
              rd1.iops(), rd32.iops(), wr1.iops(), wr32.iops(), seqr.mb_per_s(), seqw.mb_per_s());
  // ~100 us per 4 KiB read at QD1 (10k IOPS).
  EXPECT_NEAR(rd1.iops(), 10'000, 500);
  EXPECT_GE(rd32.iops(), 75'000);
  EXPECT_LE(rd32.iops(), 550e6 / 4096);
  EXPECT_NEAR(seqr.mb_per_s(), 550, 10);
  EXPECT_NEAR(seqw.mb_per_s(), 520, 10);
  EXPECT_NEAR(wr1.iops(), 42'000, 3000);
  EXPECT_GE(wr32.iops(), 75'000);
  EXPECT_LE(wr32.iops(), 100'000);
}

TEST(SsdModelTest, NvmeProfileIsFasterEverywhere) {
  const SsdParams p = Profile("nvme");
  Rig a(p), b(p), c(p);
  auto rd1 = RunClosedLoop(a.loop, *a.model, 1, 2000, Random4k(false));
  auto rd32 = RunClosedLoop(b.loop, *b.model, 32, 20000, Random4k(false));
  auto seqr = RunClosedLoop(c.loop, *c.model, 8, 512, Seq1m(false));
  std::printf("nvme: 4K read QD1 %.0f IOPS, QD32 %.0f IOPS; 1 MiB QD8 read %.1f MB/s\n", rd1.iops(),
              rd32.iops(), seqr.mb_per_s());
  EXPECT_NEAR(rd1.iops(), 19'000, 2000);
  EXPECT_GE(rd32.iops(), 200'000);  // random unit collisions at QD32
  EXPECT_NEAR(seqr.mb_per_s(), 3500, 100);
}

TEST(SsdModelTest, QueueDepthLimitHoldsExtraCommandsBack) {
  SsdParams p = Profile("sata-ssd");
  p.queue_depth = 1;
  Rig one(p), deep(Profile("sata-ssd"));
  auto limited = RunClosedLoop(one.loop, *one.model, 32, 2000, Random4k(false));
  auto full = RunClosedLoop(deep.loop, *deep.model, 32, 2000, Random4k(false));
  EXPECT_NEAR(limited.iops(), 10'000, 500);  // behaves like QD1
  EXPECT_GT(full.iops(), 5 * limited.iops());
}

TEST(SsdModelTest, FlushWaitsForProgramsAndDataIsExact) {
  Rig rig(Profile("sata-ssd"));
  auto data = testing::Pattern(3, 4096, 1 << 20);
  ASSERT_TRUE(testing::SyncWrite(rig.loop, *rig.model, 4096, data).ok());
  const Nanos acked = rig.loop.clock().now();
  ASSERT_TRUE(testing::SyncFlush(rig.loop, *rig.model).ok());
  // 64 chunks on 8 units: 8 programs of 75 us + 41 us transfer each are still running at the ack.
  EXPECT_GT(rig.loop.clock().now() - acked, Nanos(50'000));
  std::vector<std::byte> back(data.size());
  ASSERT_TRUE(testing::SyncRead(rig.loop, *rig.model, 4096, back).ok());
  EXPECT_EQ(back, data);
}

TEST(SsdModelTest, SameInputsSameTimes) {
  auto run = [] {
    Rig rig(Profile("sata-ssd"));
    return RunClosedLoop(rig.loop, *rig.model, 16, 3000, Random4k(false)).elapsed;
  };
  EXPECT_EQ(run(), run());
}

}  // namespace
}  // namespace tiercache
