// StreamReadahead through a Cache: which reads make the core read ahead, where and how much.
#include "cachelib/engine/stream_readahead.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "cachelib/device/device_wrapper.h"
#include "tests/support/cache_fixture.h"

namespace tiercache {
namespace {

constexpr uint64_t kMiB = 1 << 20;

// Records every prefetch the core is asked for, and does nothing else with it.
class PrefetchLog : public DeviceWrapper {
 public:
  explicit PrefetchLog(Device& target) : DeviceWrapper(target) {}
  std::vector<std::pair<uint64_t, uint64_t>> calls;

 protected:
  void prefetch_impl(uint64_t offset, uint64_t length, IoCallback cb) override {
    calls.emplace_back(offset, length);
    complete_later(std::move(cb), Status::Ok());
  }
};

class StreamReadaheadTest : public ::testing::Test {
 protected:
  void Make(uint64_t window = 4 * kMiB) {
    FormatOptions f;
    f.line_size = 4096;
    f.policies.admission = "always";
    CacheOptions o;
    o.stream_readahead_bytes = window;
    // Long streams stay cached: the test decides what is cached by what it reads.
    o.policies.sequential = SequentialOptions{.read_cutoff_bytes = 1024 * kMiB};
    h = std::make_unique<testing::CacheHarness>(64 * kMiB, 256 * kMiB, f, o);
    core = std::make_unique<PrefetchLog>(h->core_mem);
    h->core = core.get();
    h->open();
  }
  // Reads [from, to) in requests of `step` bytes, one at a time, each filled before the next.
  void ReadRange(uint64_t from, uint64_t to, uint64_t step) {
    std::vector<std::byte> buf(step);
    for (uint64_t at = from; at < to; at += step) {
      ASSERT_TRUE(testing::SyncRead(h->loop, *h->cache, at, buf).ok());
      h->loop.run_until_idle();
    }
  }
  void TearDown() override {
    if (h) h->cache.reset();  // opened on the wrapper: drop it before the wrapper goes
  }

  std::unique_ptr<testing::CacheHarness> h;
  std::unique_ptr<PrefetchLog> core;
  using Calls = std::vector<std::pair<uint64_t, uint64_t>>;
};

// HD Tune's pattern: the first 4 MiB are cached, a linear read in 1 MiB requests runs past them.
// The second read sees the uncached 4 MiB within its window and the core reads 1 MiB ahead from
// there; the stream's next reads do not repeat it; the next pass (a new approach) does.
TEST_F(StreamReadaheadTest, LinearReadPastTheCachedBlocksReadsTheCoreAheadOncePerPass) {
  Make();
  ReadRange(0, 4 * kMiB, kMiB);  // cold: nothing is cached ahead of it, no read-ahead
  EXPECT_EQ(core->calls, Calls{});
  ReadRange(0, 8 * kMiB, kMiB);
  EXPECT_EQ(core->calls, (Calls{{4 * kMiB, kMiB}}));
  ReadRange(0, 4 * kMiB, kMiB);  // now 8 MiB are cached: the window ends in cached blocks
  EXPECT_EQ(core->calls, (Calls{{4 * kMiB, kMiB}}));
  ReadRange(4 * kMiB, 12 * kMiB, kMiB);  // continues that stream: 8 MiB is the edge now
  EXPECT_EQ(core->calls, (Calls{{4 * kMiB, kMiB}, {8 * kMiB, kMiB}}));
}

// Only the missing run is read ahead: here 512 KiB between two cached ranges.
TEST_F(StreamReadaheadTest, ReadsOnlyTheMissingRun) {
  Make();
  ReadRange(0, 4 * kMiB, kMiB);
  ReadRange(4 * kMiB + 512 * 1024, 6 * kMiB + 512 * 1024, 512 * 1024);
  core->calls.clear();
  ReadRange(0, 3 * kMiB, kMiB);
  EXPECT_EQ(core->calls, (Calls{{4 * kMiB, 512 * 1024}}));
}

// Streams of small requests, random reads and a window of 0 never read ahead.
TEST_F(StreamReadaheadTest, SmallRequestsRandomReadsAndWindowZeroDoNot) {
  Make();
  ReadRange(0, 4 * kMiB, kMiB);
  ReadRange(0, 6 * kMiB, 128 * 1024);  // a stream, but of 128 KiB requests
  std::vector<std::byte> buf(kMiB);
  for (uint64_t at : {2 * kMiB, 0 * kMiB, 1 * kMiB + 4096}) {  // no stream continues
    ASSERT_TRUE(testing::SyncRead(h->loop, *h->cache, at, buf).ok());
  }
  EXPECT_EQ(core->calls, Calls{});
  TearDown();
  Make(0);
  ReadRange(0, 4 * kMiB, kMiB);
  ReadRange(0, 8 * kMiB, kMiB);
  EXPECT_EQ(core->calls, Calls{});
}

}  // namespace
}  // namespace tiercache
