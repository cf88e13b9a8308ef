// A trust round of many steps on a background thread while two other event-loop threads read
// from the same shards: the readers take the shard locks between the round's holds, and the
// round's counts stay exact (every untrusted line marked and trusted, the holds of ceil(L/batch)
// per shard and walk). The readers read lines trusted before, so no line they lock is one the
// round walks (a locked line is skipped, which would make the counts depend on timing).
// Run under ASan in `make test`.
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <random>

#include "cachelib/common/epoll_event_loop.h"
#include "tests/support/cache_fixture.h"

namespace tiercache {
namespace {

constexpr uint64_t kLine = 4096;
constexpr uint32_t kShards = 4;
// Engine::shard_for gives each shard one 64 KiB chunk of every aligned group of kShards chunks:
// a range of whole groups puts the same number of lines in every shard.
constexpr uint64_t kGroup = kShards * 64 * 1024;
constexpr uint64_t kReadRange = 4 * kGroup;       // trusted first, then read during the round
constexpr uint64_t kUntrustedRange = 4 * kGroup;  // written just before the round
constexpr uint64_t kLinesPerShard = kUntrustedRange / kLine / kShards;  // 64
constexpr uint32_t kBatch = 5;
constexpr uint64_t kCore = 64 << 20;

// Reads random runs of [0, kReadRange) on its loop, 8 at a time, until stopped; counts reads
// whose bytes differ from `ref` or that fail.
class Reader {
 public:
  Reader(Cache& cache, LoopThread& thread, const std::vector<std::byte>& ref, uint64_t seed)
      : cache_(cache), thread_(thread), ref_(ref), rng_(seed) {}

  void start() {
    thread_.loop().post([this] {
      for (int i = 0; i < 8; ++i) next();
    });
  }
  // Stops issuing reads and waits until the ones in flight are done.
  void stop() {
    thread_.run_sync([this] {
      stopping_ = true;
      if (inflight_ == 0) done_.set_value();
    });
    done_.get_future().wait();
  }
  uint64_t errors() const { return errors_; }

 private:
  void next() {
    if (stopping_) {
      if (inflight_ == 0) done_.set_value();
      return;
    }
    const uint64_t first = rng_() % (kReadRange / kLine);
    const uint64_t n = 1 + rng_() % std::min<uint64_t>(4, kReadRange / kLine - first);
    const uint64_t off = first * kLine, len = n * kLine;
    auto buf = std::make_shared<std::vector<std::byte>>(len);
    ++inflight_;
    cache_.read(off, *buf, [this, buf, off](Status s) {
      if (!s.ok() || !std::equal(buf->begin(), buf->end(), ref_.begin() + ptrdiff_t(off))) {
        ++errors_;
      }
      --inflight_;
      next();
    });
  }

  Cache& cache_;
  LoopThread& thread_;
  const std::vector<std::byte>& ref_;
  std::mt19937_64 rng_;
  bool stopping_ = false;  // loop-thread only, as are the counts until stop() returns
  uint64_t inflight_ = 0, errors_ = 0;
  std::promise<void> done_;
};

TEST(TrustRoundThreadsTest, ARoundOfManyStepsBesideReadersHasExactCounts) {
  auto bg = LoopThread::Start("bg");
  auto a = LoopThread::Start("reader-a");
  auto b = LoopThread::Start("reader-b");
  ASSERT_TRUE(bg.ok() && a.ok() && b.ok());
  MemoryDevice ssd("ssd", 16 << 20, 4096), core("core", kCore, 512);
  CoreIdentity id{"core", kCore, 7};
  FormatOptions f;
  f.mode = CacheMode::kWriteThrough;
  ASSERT_TRUE(((*bg)->call<Status>([&](auto cb) { MetadataStore::Format(ssd, id, f, cb); })).ok());
  CacheOptions o;
  o.shards = kShards;
  o.background_loop = &(*bg)->loop();
  o.policies.admission = "always";
  o.policies.sequential = SequentialOptions{.enabled = false};
  o.trust_interval = Nanos(0);  // only the rounds this test asks for
  o.trust_batch = kBatch;
  using R = Result<std::unique_ptr<Cache>>;
  R opened = (*bg)->call<R>([&](auto cb) { Cache::Open(ssd, core, id, o, cb); });
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  std::unique_ptr<Cache> cache = std::move(opened).value();
  auto write = [&](uint64_t off, const std::vector<std::byte>& data) {
    return (*a)->call<Status>([&](auto cb) { cache->write(off, data, {}, cb); });
  };
  auto round = [&] { return (*bg)->call<Status>([&](auto cb) { cache->trust_round(cb); }); };
  // Written through, then read back: rounds trust a line only written through only after a read.
  auto write_and_read = [&](uint64_t off, const std::vector<std::byte>& data) {
    if (Status s = write(off, data); !s.ok()) return s;
    std::vector<std::byte> back(data.size());
    Status s = (*a)->call<Status>([&](auto cb) { cache->read(off, back, cb); });
    return s.ok() && back != data ? Status::Corruption("read back differs") : s;
  };

  // The readers' range, written and trusted.
  std::vector<std::byte> ref = testing::Pattern(61, 0, kReadRange);
  ASSERT_TRUE(write_and_read(0, ref).ok());
  ASSERT_TRUE(round().ok());
  ASSERT_EQ(cache->counters().lines_untrusted, 0u);
  // The round's range, written: 64 untrusted lines in each shard.
  const std::vector<std::byte> fresh = testing::Pattern(62, kReadRange, kUntrustedRange);
  ASSERT_TRUE(write_and_read(kReadRange, fresh).ok());
  ASSERT_EQ(cache->counters().lines_untrusted, kUntrustedRange / kLine);
  ASSERT_EQ(cache->counters().lines_used, (kReadRange + kUntrustedRange) / kLine);

  Reader ra(*cache, **a, ref, 1), rb(*cache, **b, ref, 2);
  ra.start();
  rb.start();
  Status s = round();
  ra.stop();
  rb.stop();
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(ra.errors(), 0u);
  EXPECT_EQ(rb.errors(), 0u);
  const TrustRoundReport r = cache->last_trust_round();
  constexpr uint64_t kHoldsPerWalk = kShards * ((kLinesPerShard + kBatch - 1) / kBatch);  // 4 x 13
  EXPECT_EQ(r.marked, kUntrustedRange / kLine);
  EXPECT_EQ(r.trusted, kUntrustedRange / kLine);
  EXPECT_EQ(r.holds, 2 * kHoldsPerWalk);
  EXPECT_EQ(cache->counters().lines_untrusted, 0u);
  EXPECT_EQ(cache->counters().read_misses, 0u);  // the readers only hit

  // Nothing left: one hold per shard finds nothing to mark, and no second walk runs.
  ASSERT_TRUE(round().ok());
  EXPECT_EQ(cache->last_trust_round().holds, kShards);
  EXPECT_EQ(cache->last_trust_round().marked, 0u);
  EXPECT_EQ(cache->last_trust_round().trusted, 0u);

  // A power cut now: the SSD as it is (MemoryDevice writes are durable once completed) comes
  // back warm with every line, and serves them without reading the core.
  MemoryDevice cut("ssd", 16 << 20, 4096);
  std::vector<std::byte> image(16 << 20);
  ssd.read_now(0, image);
  cut.write_now(0, image);
  ASSERT_TRUE(((*bg)->call<Status>([&](auto cb) { cache->close(cb); })).ok());
  cache.reset();
  R reopened = (*bg)->call<R>([&](auto cb) { Cache::Open(cut, core, id, o, cb); });
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  cache = std::move(reopened).value();
  EXPECT_EQ(cache->counters().lines_used, (kReadRange + kUntrustedRange) / kLine);
  std::vector<std::byte> all(kReadRange + kUntrustedRange);
  ASSERT_TRUE(((*a)->call<Status>([&](auto cb) { cache->read(0, all, cb); })).ok());
  EXPECT_TRUE(std::equal(ref.begin(), ref.end(), all.begin()));
  EXPECT_TRUE(std::equal(fresh.begin(), fresh.end(), all.begin() + ptrdiff_t(kReadRange)));
  EXPECT_EQ(cache->counters().bytes_read_core, 0u);
  ASSERT_TRUE(((*bg)->call<Status>([&](auto cb) { cache->close(cb); })).ok());
}

}  // namespace
}  // namespace tiercache
