// Live policy changes (Cache::set_policies, `tiercache policy`): on a full cache a new
// replacement policy learns every line (each miss still evicts exactly one, no old line stays
// behind), dirty lines stay dirty until cleaned, a new admission policy decides from then on,
// the change survives a restart, refused or failed changes (a closing cache too) leave the old
// policies in force, and close() waits for a change under way.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cachelib/device/error_device.h"
#include "cachelib/engine/cache.h"
#include "cachelib/metadata/format.h"
#include "tests/support/cache_fixture.h"

namespace tiercache {
namespace {

using testing::CacheHarness;
using testing::CounterOf;
using testing::Pattern;

constexpr uint64_t kLine = 64 * 1024;
constexpr uint64_t kSeed = 17;

PolicyOptions Policies(const char* admission, const char* replacement) {
  // No sequential bypass: every read below is a miss or a hit, none bypasses.
  return {.admission = admission, .replacement = replacement,
          .sequential = SequentialOptions{.enabled = false}};
}

class PolicySwitchTest : public ::testing::Test {
 protected:
  // 64 KiB lines on a 2 MiB SSD (a few dozen lines), 4 shards, recorded with `policies`.
  void Make(CacheMode mode, const PolicyOptions& policies) {
    FormatOptions f;
    f.mode = mode;
    f.line_size = kLine;
    f.policies = policies;
    CacheOptions o;
    o.shards = 4;
    o.cleaning = "nop";            // dirty data stays until a test cleans it
    o.stream_readahead_bytes = 0;  // no core read the test did not ask for
    h = std::make_unique<CacheHarness>(2 << 20, 64 << 20, f, o);
    h->core_mem.write_now(0, Pattern(kSeed, 0, 64 << 20));
    h->open();
    lines = C().lines_total;
    ASSERT_GT(lines, 16u);
  }
  // Reads whole line `i` and checks it byte for byte against the core pattern.
  void ReadLine(uint64_t i) {
    std::vector<std::byte> out(kLine);
    Status s = testing::SyncRead(h->loop, *h->cache, i * kLine, out);
    ASSERT_TRUE(s.ok()) << s.ToString();
    h->loop.run_until_idle();  // the fill and its persists complete
    ASSERT_EQ(out, Pattern(seed_of(i), i * kLine, kLine)) << "line " << i;
  }
  void ReadLines(uint64_t first, uint64_t count) {
    for (uint64_t i = first; i < first + count; ++i) ASSERT_NO_FATAL_FAILURE(ReadLine(i));
  }
  // Every shard full: each keeps its one reserve line free (a shard gets every 4th line).
  void Fill() {
    ReadLines(0, 4 * lines);
    ASSERT_EQ(C().lines_used, lines - 4);
  }
  Status Switch(const PolicyOptions& p) { return testing::SyncSetPolicies(h->loop, *h->cache, p); }
  CacheCounters C() { return h->cache->counters(); }
  uint64_t seed_of(uint64_t line) const { return line < dirty_lines_ ? kSeed + 1 : kSeed; }

  std::unique_ptr<ErrorDevice> error_ssd;  // when a test puts it under the cache: outlives h
  std::unique_ptr<CacheHarness> h;
  uint64_t lines = 0;
  uint64_t dirty_lines_ = 0;  // lines [0, dirty_lines_) were rewritten with seed kSeed + 1
};

// LRU -> CLOCK on a full cache. CLOCK learns the lines in line order, all unreferenced; with no
// hit after the switch its hand evicts every old line within one turn. So a scan of 3x the cache
// evicts exactly once per miss, and afterwards none of the lines filled before is still cached:
// a line the new policy did not learn would never be evicted, and would be a hit here.
TEST_F(PolicySwitchTest, ReplacementSwitchOnAFullCacheKeepsEveryLineEvictable) {
  ASSERT_NO_FATAL_FAILURE(Make(CacheMode::kWriteThrough, Policies("always", "lru")));
  ASSERT_NO_FATAL_FAILURE(Fill());
  const CacheCounters before = C();
  ASSERT_TRUE(Switch(Policies("always", "clock")).ok());
  EXPECT_EQ(h->cache->policy_report().replacement, "clock");
  EXPECT_EQ(h->cache->policies(), Policies("always", "clock"));
  EXPECT_EQ(C().lines_used, lines - 4);

  ASSERT_NO_FATAL_FAILURE(ReadLines(4 * lines, 3 * lines));
  EXPECT_EQ(C().read_misses, before.read_misses + 3 * lines);
  EXPECT_EQ(C().evictions, before.evictions + 3 * lines);
  EXPECT_EQ(C().lines_used, lines - 4);

  const CacheCounters scanned = C();
  ASSERT_NO_FATAL_FAILURE(ReadLines(0, 4 * lines));
  EXPECT_EQ(C().read_hits, scanned.read_hits);
  EXPECT_EQ(C().read_misses, scanned.read_misses + 4 * lines);
  EXPECT_EQ(C().evictions, scanned.evictions + 4 * lines);
  // The records agree: a clean restart loads exactly the lines in use.
  h->restart();
  EXPECT_EQ(C().lines_used, lines - 4);
  EXPECT_EQ(h->cache->policy_report().replacement, "clock");
}

// Write-back: dirty lines keep their dirty sectors through a switch to SIEVE and a scan of 3x the
// cache (a dirty line is never a victim), are hits afterwards, and the cleaner writes them back.
TEST_F(PolicySwitchTest, DirtyLinesStayDirtyAndAreCleanedAfterAReplacementSwitch) {
  ASSERT_NO_FATAL_FAILURE(Make(CacheMode::kWriteBack, Policies("always", "lru")));
  dirty_lines_ = 8;
  for (uint64_t i = 0; i < dirty_lines_; ++i) {
    Status s =
        testing::SyncWrite(h->loop, *h->cache, i * kLine, Pattern(kSeed + 1, i * kLine, kLine));
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  ASSERT_NO_FATAL_FAILURE(Fill());  // dirty lines are never victims: all 8 stay
  ASSERT_EQ(C().lines_dirty, dirty_lines_);
  const uint64_t dirty_sectors = C().dirty_sectors;
  ASSERT_TRUE(Switch(Policies("always", "sieve")).ok());
  EXPECT_EQ(C().lines_dirty, dirty_lines_);
  EXPECT_EQ(C().dirty_sectors, dirty_sectors);

  const CacheCounters before = C();
  ASSERT_NO_FATAL_FAILURE(ReadLines(4 * lines, 3 * lines));
  EXPECT_EQ(C().evictions, before.evictions + 3 * lines);
  EXPECT_EQ(C().lines_dirty, dirty_lines_);
  const uint64_t hits = C().read_hits;
  ASSERT_NO_FATAL_FAILURE(ReadLines(0, dirty_lines_));
  EXPECT_EQ(C().read_hits, hits + dirty_lines_);

  ASSERT_TRUE(testing::SyncCleanAll(h->loop, *h->cache).ok());
  EXPECT_EQ(C().lines_dirty, 0u);
  std::vector<std::byte> core(dirty_lines_ * kLine);
  h->core_mem.read_now(0, core);
  EXPECT_EQ(core, Pattern(kSeed + 1, 0, dirty_lines_ * kLine));
}

// always -> adaptive on a full cache: the new admission policy starts with no history (its
// counters at 0), then answers once per miss; each block it admits evicts one (the shards are
// full), each it refuses evicts none. Replacement is untouched. Under `always` a scan is admitted
// whole; adaptive admits part of the first scan (it has no evidence yet), learns that those
// blocks never come back, and refuses all of a second scan.
TEST_F(PolicySwitchTest, AdmissionSwitchChangesTheDecisions) {
  ASSERT_NO_FATAL_FAILURE(Make(CacheMode::kWriteThrough, Policies("always", "lru")));
  ASSERT_NO_FATAL_FAILURE(Fill());
  PolicyReport r = h->cache->policy_report();
  EXPECT_EQ(CounterOf(r.admission_counters, "admitted"), C().read_misses);
  EXPECT_EQ(CounterOf(r.admission_counters, "refused"), 0u);

  ASSERT_TRUE(Switch(Policies("adaptive", "lru")).ok());
  r = h->cache->policy_report();
  EXPECT_EQ(r.admission, "adaptive");
  EXPECT_EQ(r.replacement, "lru");
  EXPECT_EQ(CounterOf(r.admission_counters, "admitted"), 0u);
  EXPECT_EQ(CounterOf(r.admission_counters, "refused"), 0u);

  // First scan of 4x the cache: one answer per miss, one eviction per admission.
  const CacheCounters before = C();
  ASSERT_NO_FATAL_FAILURE(ReadLines(4 * lines, 4 * lines));
  r = h->cache->policy_report();
  const uint64_t admitted = CounterOf(r.admission_counters, "admitted");
  const uint64_t refused = CounterOf(r.admission_counters, "refused");
  EXPECT_EQ(admitted + refused, 4 * lines);
  EXPECT_GT(refused, 0u);  // `always` refuses nothing
  EXPECT_EQ(C().evictions, before.evictions + admitted);
  // A second scan: none of the first one's blocks came back, so every block is refused (no probe
  // yet: a shard admits one refused block in 256, and none has refused 256 so far), except the few
  // the ghost's Bloom filters take for blocks seen before (false recalls, <= 4.3%): level 1 has
  // no evidence yet and admits them.
  ASSERT_LT(refused + 4 * lines, 4 * 256u);
  const uint64_t recalled = CounterOf(r.admission_counters, "recalled");
  ASSERT_NO_FATAL_FAILURE(ReadLines(8 * lines, 4 * lines));
  r = h->cache->policy_report();
  const uint64_t false_recalls = CounterOf(r.admission_counters, "recalled") - recalled;
  EXPECT_LE(false_recalls, 4 * lines * 43 / 1000);
  EXPECT_EQ(CounterOf(r.admission_counters, "admitted"), admitted + false_recalls);
  EXPECT_EQ(CounterOf(r.admission_counters, "refused"), refused + 4 * lines - false_recalls);
  EXPECT_EQ(C().evictions, before.evictions + admitted + false_recalls);
  EXPECT_EQ(C().lines_used, lines - 4);
}

// All three parts change, sequential bypass included; a clean restart runs what was recorded.
TEST_F(PolicySwitchTest, NewPoliciesSurviveARestart) {
  ASSERT_NO_FATAL_FAILURE(Make(CacheMode::kWriteThrough, Policies("always", "lru")));
  ASSERT_NO_FATAL_FAILURE(ReadLines(0, 8));
  PolicyOptions next = Policies("nhit", "s3fifo");
  next.sequential = SequentialOptions{.read_cutoff_bytes = 1 << 20, .write_cutoff_bytes = 2 << 20};
  ASSERT_TRUE(Switch(next).ok());
  EXPECT_EQ(h->cache->policies(), next);
  h->restart();
  EXPECT_EQ(h->cache->info().policies, next);
  EXPECT_EQ(h->cache->policies(), next);
  PolicyReport r = h->cache->policy_report();
  EXPECT_EQ(r.admission, "nhit");
  EXPECT_EQ(r.replacement, "s3fifo");
  EXPECT_EQ(C().lines_used, 8u);
}

// An unknown name, a failed superblock write and a closing cache are refused; the old policies
// stay in force and recorded.
TEST_F(PolicySwitchTest, RefusedOrFailedChangesLeaveTheOldPolicies) {
  ASSERT_NO_FATAL_FAILURE(Make(CacheMode::kWriteThrough, Policies("always", "lru")));
  error_ssd = std::make_unique<ErrorDevice>(h->ssd_mem);
  ErrorDevice* ssd = error_ssd.get();
  h->ssd = ssd;
  h->restart();
  const PolicyOptions old = Policies("always", "lru");

  Status s = Switch(Policies("always", "nope"));
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "unknown replacement policy 'nope' (lru, clock, s3fifo, sieve, epoch-lru)");
  EXPECT_EQ(h->cache->policies(), old);

  ssd->fail_range(0, format::kSuperblockAreaSize, ErrorDevice::kWrite);
  s = Switch(Policies("adaptive", "clock"));
  EXPECT_EQ(s.code(), Status::Code::kIoError) << s.ToString();
  EXPECT_EQ(h->cache->policies(), old);
  EXPECT_EQ(h->cache->policy_report().replacement, "lru");
  ssd->clear();
  h->restart();
  EXPECT_EQ(h->cache->policies(), old);

  // The first superblock copy takes the new set, the second write fails: the engine writes the
  // old set back (both copies), so the restart runs what was in force.
  const uint64_t injected = ssd->injected();
  ssd->fail_nth(2, ErrorDevice::kWrite);
  s = Switch(Policies("adaptive", "clock"));
  EXPECT_EQ(s.code(), Status::Code::kIoError) << s.ToString();
  EXPECT_EQ(ssd->injected(), injected + 1);
  EXPECT_EQ(h->cache->policies(), old);
  h->loop.run_until_idle();  // the write-back of the old set
  ssd->clear();
  h->restart();
  EXPECT_EQ(h->cache->policies(), old);

  ASSERT_TRUE(testing::SyncClose(h->loop, *h->cache).ok());
  s = Switch(Policies("adaptive", "clock"));
  EXPECT_EQ(s.code(), Status::Code::kBusy);
  EXPECT_EQ(s.message(), "the cache is closing (its policies stay as they are)");
  h->open();
  EXPECT_EQ(h->cache->policies(), old);
}

// close() first, then a change: refused at once (before the close completes), and the cache
// reopens with the old policies.
TEST_F(PolicySwitchTest, ChangeAskedWhileTheCacheClosesIsRefused) {
  ASSERT_NO_FATAL_FAILURE(Make(CacheMode::kWriteThrough, Policies("always", "lru")));
  ASSERT_NO_FATAL_FAILURE(ReadLines(0, 8));
  std::optional<Status> closed, changed;
  {
    EventLoop::ScopedCurrent scope(&h->loop);
    h->cache->close([&](Status s) { closed = s; });
    h->cache->set_policies(Policies("adaptive", "clock"), [&](Status s) { changed = s; });
  }
  ASSERT_TRUE(changed.has_value());
  EXPECT_FALSE(closed.has_value());
  EXPECT_EQ(changed->code(), Status::Code::kBusy);
  EXPECT_EQ(changed->message(), "the cache is closing (its policies stay as they are)");
  h->loop.run_until_idle();
  ASSERT_TRUE(closed.has_value());
  EXPECT_TRUE(closed->ok()) << closed->ToString();
  h->open();
  EXPECT_EQ(h->cache->policies(), Policies("always", "lru"));
  EXPECT_EQ(h->cache->policy_report().replacement, "lru");
  EXPECT_EQ(C().lines_used, 8u);
}

// A change, then close() before it is done: the close waits for it (the change answers first,
// with success), and the cache reopens running the new policies with every line.
TEST_F(PolicySwitchTest, CloseWaitsForARunningChange) {
  ASSERT_NO_FATAL_FAILURE(Make(CacheMode::kWriteThrough, Policies("always", "lru")));
  ASSERT_NO_FATAL_FAILURE(Fill());
  std::vector<std::string> answers;
  auto record = [&answers](const char* what) {
    return [&answers, what](Status s) { answers.push_back(what + (": " + s.ToString())); };
  };
  {
    EventLoop::ScopedCurrent scope(&h->loop);
    h->cache->set_policies(Policies("always", "s3fifo"), record("change"));
    h->cache->close(record("close"));
  }
  EXPECT_TRUE(answers.empty());
  h->loop.run_until_idle();
  EXPECT_EQ(answers, (std::vector<std::string>{"change: " + Status::Ok().ToString(),
                                               "close: " + Status::Ok().ToString()}));
  const PolicySwapReport swap = h->cache->last_policy_swap();
  EXPECT_EQ(swap.shards, 4u);
  EXPECT_EQ(swap.holds, 4u);  // a few dozen lines: one step per shard
  EXPECT_EQ(swap.lines, lines - 4);
  h->open();
  EXPECT_EQ(h->cache->policies(), Policies("always", "s3fifo"));
  EXPECT_EQ(h->cache->policy_report().replacement, "s3fifo");
  EXPECT_EQ(C().lines_used, lines - 4);
}

}  // namespace
}  // namespace tiercache
