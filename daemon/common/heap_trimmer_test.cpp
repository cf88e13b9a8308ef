// HeapTrimmer against glibc's allocator (ASan replaces it: this test is built without ASan only).
// A burst of 1 MiB blocks under the daemon's mmap threshold stays resident once freed; the trimmer
// gives it back, once per growth, and its timer runs the check.
#include "daemon/common/heap_trimmer.h"

#include <malloc.h>

#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "cachelib/common/sim_event_loop.h"

namespace tiercache {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

// Allocates and touches `mib` blocks of 1 MiB, then frees them: they stay resident (SetUp: no
// trim at free()) until a malloc_trim.
void Burst(size_t mib) {
  std::vector<void*> blocks;
  for (size_t i = 0; i < mib; ++i) {
    blocks.push_back(std::malloc(kMiB));
    std::memset(blocks.back(), 0x5a, kMiB);
  }
  for (void* b : blocks) std::free(b);
}

class HeapTrimmerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    mallopt(M_MMAP_THRESHOLD, 64 << 20);  // as tiercached
    // free() gives nothing back by itself, whatever the heap's layout: only a trim does.
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
  }
  void TearDown() override { malloc_trim(0); }
};

TEST_F(HeapTrimmerTest, GivesABurstBackOncePerGrowth) {
  SimEventLoop loop;
  HeapTrimmer trimmer(loop, {.interval = std::chrono::seconds(10), .keep_free = 64 * kMiB});
  Burst(320);
  const size_t before = HeapTrimmer::ResidentBytes();
  ASSERT_GE(HeapTrimmer::FreeHeapBytes(), 300 * kMiB);
  EXPECT_TRUE(trimmer.check_now());
  const size_t after = HeapTrimmer::ResidentBytes();
  EXPECT_LT(after + 250 * kMiB, before) << before << " -> " << after;
  EXPECT_FALSE(trimmer.check_now());  // free but no longer resident: nothing to do

  Burst(320);
  EXPECT_TRUE(trimmer.check_now());
}

TEST_F(HeapTrimmerTest, LeavesLessThanKeepFreeAlone) {
  SimEventLoop loop;
  HeapTrimmer trimmer(loop, {.interval = std::chrono::seconds(10), .keep_free = 1024 * kMiB});
  Burst(320);
  const size_t before = HeapTrimmer::ResidentBytes();
  EXPECT_FALSE(trimmer.check_now());
  EXPECT_GE(HeapTrimmer::ResidentBytes() + 10 * kMiB, before);
}

TEST_F(HeapTrimmerTest, TheTimerChecksEveryInterval) {
  SimEventLoop loop;
  HeapTrimmer trimmer(loop, {.interval = std::chrono::seconds(10), .keep_free = 64 * kMiB});
  trimmer.start();
  Burst(320);
  const size_t before = HeapTrimmer::ResidentBytes();
  loop.run_for(std::chrono::seconds(9));
  EXPECT_GE(HeapTrimmer::ResidentBytes() + 10 * kMiB, before);  // not yet
  loop.run_for(std::chrono::seconds(1));
  EXPECT_LT(HeapTrimmer::ResidentBytes() + 250 * kMiB, before);
  EXPECT_EQ(loop.pending(), 1u);  // the next check
  trimmer.stop();
  EXPECT_EQ(loop.pending(), 0u);
}

}  // namespace
}  // namespace tiercache
