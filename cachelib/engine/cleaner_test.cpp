// The cleaner's coalescing (WritebackRun): adjacent dirty sectors of a batch's lines reach the
// core as one write, up to CleaningOptions::max_write_bytes; holes and partly dirty lines break a
// run; a failed SSD read fails only its line; a full core keeps the data dirty and says why; a
// live change of policy takes effect; a batch locks only the groups it is copying, and an idle
// batch stops at a client request. Core writes are counted (and held back) by a wrapper on the
// core.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "cachelib/common/logger.h"
#include "cachelib/device/device_wrapper.h"
#include "cachelib/engine/cache.h"
#include "cachelib/engine/cleaner.h"
#include "tests/support/cache_fixture.h"

namespace tiercache {
namespace {

using testing::CacheHarness;
using testing::CounterOf;
using testing::Pattern;
using Writes = std::vector<std::pair<uint64_t, uint64_t>>;  // (offset, bytes)

constexpr uint64_t kKiB = 1024;

// Records every write (offset, bytes) in submission order; fails them with `fail_writes` while
// that is not OK (a full disk: nothing is written); with `hold_writes`, keeps each write's
// completion until release_held() (a slow disk the test paces).
class CountingDevice final : public DeviceWrapper {
 public:
  explicit CountingDevice(Device& target) : DeviceWrapper(target) {}
  Writes writes;
  Status fail_writes = Status::Ok();
  uint64_t flushes = 0;
  bool hold_writes = false;
  std::vector<std::function<void()>> held;
  // Completes the writes held so far on `loop`, as the disk would; returns how many.
  size_t release_held(EventLoop& loop) {
    EventLoop::ScopedCurrent scope(&loop);
    auto now = std::exchange(held, {});
    for (auto& complete : now) complete();
    return now.size();
  }

 protected:
  void flush_impl(IoCallback cb) override {
    ++flushes;
    DeviceWrapper::flush_impl(std::move(cb));
  }
  void write_impl(uint64_t offset, std::span<const std::byte> buf, WriteFlags flags,
                  IoCallback cb) override {
    writes.emplace_back(offset, buf.size());
    if (!fail_writes.ok()) return cb(fail_writes);
    if (hold_writes) {
      return DeviceWrapper::write_impl(offset, buf, flags, [this, cb = std::move(cb)](Status s) {
        held.push_back([cb, s] { cb(s); });
      });
    }
    DeviceWrapper::write_impl(offset, buf, flags, std::move(cb));
  }
};

// Fails the `fail_at`-th read (1-based) counted from arm(); the others pass.
class FailingReadDevice final : public DeviceWrapper {
 public:
  explicit FailingReadDevice(Device& target) : DeviceWrapper(target) {}
  void arm(uint64_t fail_at) { reads_ = 0, fail_at_ = fail_at; }

 protected:
  void read_impl(uint64_t offset, std::span<std::byte> buf, IoCallback cb) override {
    if (fail_at_ > 0 && ++reads_ == fail_at_) {
      return DeviceWrapper::read_impl(offset, buf, [cb = std::move(cb)](Status) {
        cb(Status::IoError("injected read error"));
      });
    }
    DeviceWrapper::read_impl(offset, buf, std::move(cb));
  }

 private:
  uint64_t reads_ = 0, fail_at_ = 0;
};

class CleanerTest : public ::testing::Test {
 protected:
  // A write-back cache of `line_size` lines whose dirty data stays until clean_all.
  void Make(uint32_t line_size, uint64_t max_write_bytes = 1 << 20) {
    CacheOptions o;
    o.shards = 4;
    o.cleaning = "nop";
    o.cleaning_options.max_write_bytes = max_write_bytes;
    o.policies.admission = "always";
    o.policies.sequential = SequentialOptions{.enabled = false};
    FormatOptions f;
    f.mode = CacheMode::kWriteBack;
    f.line_size = line_size;
    h = std::make_unique<CacheHarness>(16 << 20, 64 << 20, f, o);
    ssd = std::make_unique<FailingReadDevice>(h->ssd_mem);
    core = std::make_unique<CountingDevice>(h->core_mem);
    h->ssd = ssd.get();
    h->core = core.get();
    h->open();
  }
  void TearDown() override { h->cache.reset(); }  // before the wrappers go
  // Writes Pattern(seed) at [off, off + len) and remembers it as the expected core content.
  void Write(uint64_t off, uint64_t len) {
    auto data = Pattern(7, off, len);
    ASSERT_TRUE(testing::SyncWrite(h->loop, *h->cache, off, data).ok());
    std::copy(data.begin(), data.end(), want.begin() + off);
  }
  Status CleanAll() {
    core->writes.clear();
    return testing::SyncCleanAll(h->loop, *h->cache);
  }
  std::vector<std::byte> Core() {
    std::vector<std::byte> out(want.size());
    h->core_mem.read_now(0, out);
    return out;
  }

  std::unique_ptr<CacheHarness> h;
  std::unique_ptr<FailingReadDevice> ssd;
  std::unique_ptr<CountingDevice> core;
  std::vector<std::byte> want = std::vector<std::byte>(4 << 20);
};

TEST_F(CleanerTest, AdjacentDirtyLinesBecomeOneCoreWrite) {
  Make(4096);
  for (uint64_t line = 0; line < 64; ++line) Write(line * 4 * kKiB, 4 * kKiB);
  ASSERT_EQ(h->cache->counters().lines_dirty, 64u);
  ASSERT_TRUE(CleanAll().ok());
  EXPECT_EQ(core->writes, (Writes{{0, 256 * kKiB}}));
  EXPECT_EQ(h->cache->counters().cleaner_writes, 1u);
  EXPECT_EQ(h->cache->counters().lines_dirty, 0u);
  EXPECT_EQ(Core(), want);
}

// 1024 lines over 4 shards: each shard's window crosses several words of its dirty bitmap, and
// the batch still comes out in LBA order, every line once (Shard::collect_dirty once skipped
// words and took them later: holes, and lines copied twice).
TEST_F(CleanerTest, AWholeBatchComesOutInLbaOrder) {
  Make(4096);
  Write(0, 4 << 20);
  ASSERT_TRUE(CleanAll().ok());
  EXPECT_EQ(core->writes, (Writes{{0, 1 << 20}, {1 << 20, 1 << 20}, {2 << 20, 1 << 20},
                                  {3 << 20, 1 << 20}}));
  EXPECT_EQ(h->cache->counters().cleaned_lines, 1024u);
  EXPECT_EQ(Core(), want);
}

// A live change of cleaning policy: nop keeps an idle cache's dirty data; target then cleans it
// all once the cache is idle (its idle_after, here 1 s of virtual time); back to nop, new dirty
// data stays again. Invalid options are refused and the policy in use stays.
TEST_F(CleanerTest, LiveChangeOfPolicyTakesEffect) {
  Make(4096);
  for (uint64_t line = 0; line < 64; ++line) Write(line * 4 * kKiB, 4 * kKiB);
  h->loop.run_until_idle();
  EXPECT_EQ(h->cache->counters().lines_dirty, 64u);
  EXPECT_TRUE(core->writes.empty());
  CleaningOptions bad;
  bad.dirty_target = 0.6;
  EXPECT_EQ(testing::SyncSetCleaning(h->loop, *h->cache, "target", bad).ToString(),
            "InvalidArgument: dirty_target must be in [0, dirty_high)");
  EXPECT_EQ(testing::SyncSetCleaning(h->loop, *h->cache, "alru", {}).ToString(),
            "InvalidArgument: unknown cleaning policy 'alru' (known: target, nop)");
  EXPECT_EQ(h->cache->policy_report().cleaning, "nop");
  ASSERT_TRUE(testing::SyncSetCleaning(h->loop, *h->cache, "target", {}).ok());
  EXPECT_EQ(h->cache->policy_report().cleaning, "target");
  h->loop.run_until_idle();
  EXPECT_EQ(h->cache->counters().lines_dirty, 0u);
  EXPECT_EQ(core->writes, (Writes{{0, 256 * kKiB}}));
  EXPECT_EQ(Core(), want);
  ASSERT_TRUE(testing::SyncSetCleaning(h->loop, *h->cache, "nop", {}).ok());
  Write(1 << 20, 4 * kKiB);
  h->loop.run_until_idle();
  EXPECT_EQ(h->cache->counters().lines_dirty, 1u);
  EXPECT_EQ(core->writes.size(), 1u);
}

// The oldest dirty age is reported as of the status call, not of the cleaner's last decision:
// under nop (which decides only when the dirty count grows) it read 0 s however old the data was.
TEST_F(CleanerTest, TheOldestDirtyAgeGrowsWhileNothingIsCleaned) {
  Make(4096);  // cleaning nop
  EXPECT_EQ(h->cache->policy_report().oldest_dirty_age_ns, 0);
  Write(0, 4 * kKiB);
  h->loop.run_until_idle();
  h->loop.run_for(std::chrono::seconds(4));
  const auto age = Nanos(h->cache->policy_report().oldest_dirty_age_ns);
  // An upper bound within one epoch (max_dirty_age / 2: 15 s by default), as documented.
  EXPECT_GE(age, std::chrono::seconds(4));
  EXPECT_LE(age, std::chrono::seconds(4 + 15));
  h->loop.run_for(std::chrono::seconds(3));
  EXPECT_EQ(Nanos(h->cache->policy_report().oldest_dirty_age_ns) - age, std::chrono::seconds(3));
  EXPECT_EQ(h->cache->counters().lines_dirty, 1u);
}

// A live change of max_dirty_age also shortens the epochs that date dirty lines: a line written
// after a change from 60 s to 6 s is cleaned about 5 s later (the age bound less its margin),
// not at once for having joined an epoch that began long before it was written.
TEST_F(CleanerTest, LiveChangeOfTheAgeBoundDatesNewLinesByTheNewEpochs) {
  Make(4096);
  CleaningOptions slow;
  slow.dirty_target = 0.9;
  slow.dirty_high = 1.0;
  slow.idle_after = std::chrono::hours(1);
  slow.max_dirty_age = std::chrono::seconds(60);
  ASSERT_TRUE(testing::SyncSetCleaning(h->loop, *h->cache, "target", slow).ok());
  h->loop.run_for(std::chrono::seconds(10));  // a third into the first 30 s epoch
  CleaningOptions fast = slow;
  fast.max_dirty_age = std::chrono::seconds(6);
  fast.age_margin = std::chrono::seconds(1);
  ASSERT_TRUE(testing::SyncSetCleaning(h->loop, *h->cache, "target", fast).ok());
  Write(0, 4 * kKiB);
  h->loop.run_for(std::chrono::seconds(3));
  EXPECT_EQ(h->cache->counters().lines_dirty, 1u);
  h->loop.run_for(std::chrono::seconds(4));
  EXPECT_EQ(h->cache->counters().lines_dirty, 0u);
  EXPECT_EQ(Core(), want);
}

// Lines found dirty when the cache opens have no recorded age (at least the restart's): they
// count as max_dirty_age old, so the bound makes the cleaner write them back first, while a line
// written after the open waits its turn.
TEST_F(CleanerTest, DirtyLinesFoundAtOpenCountAsOldAsTheBound) {
  Make(4096);  // cleaning nop
  Write(0, 4 * kKiB);
  ASSERT_TRUE(testing::SyncFlush(h->loop, *h->cache).ok());
  const Nanos before_open = h->loop.clock().now();
  h->crash_restart();
  Write(1 << 20, 4 * kKiB);  // after the open
  h->loop.run_until_idle();
  EXPECT_EQ(h->cache->counters().lines_dirty, 2u);
  // 30 s at the open, and older by the (virtual) time since.
  const Nanos age(h->cache->policy_report().oldest_dirty_age_ns);
  EXPECT_GE(age, std::chrono::seconds(30));
  EXPECT_LE(age, std::chrono::seconds(30) + (h->loop.clock().now() - before_open));
  CleaningOptions age_only;  // dirty ratio and idleness never trigger; the bound (30 s) does
  age_only.dirty_target = 0.9;
  age_only.dirty_high = 1.0;
  age_only.idle_after = std::chrono::hours(1);
  ASSERT_TRUE(testing::SyncSetCleaning(h->loop, *h->cache, "target", age_only).ok());
  auto age_batches = [&] {
    return CounterOf(h->cache->policy_report().cleaning_counters, "cleaning_batches_age");
  };
  h->loop.run_for(std::chrono::seconds(1));
  EXPECT_EQ(h->cache->counters().lines_dirty, 1u);
  EXPECT_EQ(age_batches(), 1u);
  std::vector<std::byte> first(4 * kKiB);
  h->core_mem.read_now(0, first);
  EXPECT_EQ(first, Pattern(7, 0, 4 * kKiB));  // the line found dirty went first
  EXPECT_LT(Nanos(h->cache->policy_report().oldest_dirty_age_ns), std::chrono::seconds(30));
  h->loop.run_for(std::chrono::seconds(30));  // the other line nears the bound in turn
  EXPECT_EQ(h->cache->counters().lines_dirty, 0u);
  EXPECT_EQ(age_batches(), 2u);
  EXPECT_EQ(Core(), want);
}

TEST_F(CleanerTest, RunsEndAtTheBound) {
  Make(4096, 64 * kKiB);
  Write(0, 256 * kKiB);
  ASSERT_TRUE(CleanAll().ok());
  EXPECT_EQ(core->writes, (Writes{{0, 64 * kKiB}, {64 * kKiB, 64 * kKiB},
                                  {128 * kKiB, 64 * kKiB}, {192 * kKiB, 64 * kKiB}}));
  EXPECT_EQ(Core(), want);
}

TEST_F(CleanerTest, AHoleSplitsTheRun) {
  Make(4096);
  Write(0, 128 * kKiB);              // lines 0..31
  Write(132 * kKiB, 128 * kKiB);     // lines 33..64; line 32 stays clean
  ASSERT_TRUE(CleanAll().ok());
  EXPECT_EQ(core->writes, (Writes{{0, 128 * kKiB}, {132 * kKiB, 128 * kKiB}}));
  EXPECT_EQ(Core(), want);
}

// 16 KiB lines of four sectors: line 2 has only sectors 1 and 2 dirty, so neither its start nor
// its end touches its neighbours' dirty sectors.
TEST_F(CleanerTest, PartlyDirtyLineBreaksTheRun) {
  Make(16 * kKiB);
  Write(0, 32 * kKiB);              // lines 0 and 1
  Write(36 * kKiB, 8 * kKiB);       // line 2, sectors 1..2
  Write(48 * kKiB, 16 * kKiB);      // line 3
  Write(68 * kKiB, 12 * kKiB);      // line 4, sectors 1..3: ends where line 5 starts
  Write(80 * kKiB, 4 * kKiB);       // line 5, sector 0
  ASSERT_TRUE(CleanAll().ok());
  EXPECT_EQ(core->writes, (Writes{{0, 32 * kKiB}, {36 * kKiB, 8 * kKiB}, {48 * kKiB, 16 * kKiB},
                                  {68 * kKiB, 16 * kKiB}}));
  EXPECT_EQ(Core(), want);
}

// The 10th SSD read of the run (line 9) fails: the lines before and after it still reach the core
// (two writes), only line 9 stays dirty, and its core copy is untouched.
TEST_F(CleanerTest, FailedSsdReadFailsOnlyItsLine) {
  Make(4096);
  Write(0, 256 * kKiB);
  ssd->arm(10);
  EXPECT_FALSE(CleanAll().ok());
  EXPECT_EQ(core->writes, (Writes{{0, 36 * kKiB}, {40 * kKiB, 216 * kKiB}}));
  EXPECT_EQ(h->cache->counters().lines_dirty, 1u);
  std::fill(want.begin() + 36 * kKiB, want.begin() + 40 * kKiB, std::byte{0});
  EXPECT_EQ(Core(), want);
  ssd->arm(0);
  ASSERT_TRUE(CleanAll().ok());  // the line is read again from the SSD
  EXPECT_EQ(core->writes, (Writes{{36 * kKiB, 4 * kKiB}}));
  auto line9 = Pattern(7, 36 * kKiB, 4 * kKiB);
  std::copy(line9.begin(), line9.end(), want.begin() + 36 * kKiB);
  EXPECT_EQ(Core(), want);
}

TEST_F(CleanerTest, AFullCoreKeepsTheDataDirtyAndSaysWhy) {
  Make(4096);
  Write(0, 64 * kKiB);
  Write(1 << 20, 8 * kKiB);
  const Status full = Status::NoSpace("pwrite hdd.img: No space left on device");
  core->fail_writes = full;
  std::string log;
  Logger::instance().set_sink([&log](std::string_view line) { log += line; });
  Logger::instance().set_time_source([] { return std::string("T"); });
  for (int attempt = 1; attempt <= 2; ++attempt) {
    EXPECT_EQ(CleanAll().ToString(), full.ToString());
    // Two runs per attempt, each failed: nothing counts as written, every line stays dirty.
    EXPECT_EQ(core->writes, (Writes{{0, 64 * kKiB}, {1 << 20, 8 * kKiB}}));
    const CacheCounters c = h->cache->counters();
    EXPECT_EQ(c.cleaner_write_errors, 2u * attempt);
    EXPECT_EQ(c.cleaner_writes, 0u);
    EXPECT_EQ(c.bytes_written_core, 0u);
    EXPECT_EQ(c.lines_dirty, 18u);
    const PolicyReport r = h->cache->policy_report();
    EXPECT_EQ(r.cleaning_error, full.ToString());
    EXPECT_EQ(r.flush_eta_ns, -1);  // no rate from a failing core
  }
  EXPECT_EQ(Core(), std::vector<std::byte>(want.size()));
  // A switch to wt that must drain fails with the core full, and leaves the mode as it was.
  EXPECT_EQ(testing::SyncSetMode(h->loop, *h->cache, CacheMode::kWriteThrough, true).ToString(),
            "NoSpace: writing dirty data back failed, the mode stays wb: " + full.message());
  EXPECT_EQ(h->cache->mode(), CacheMode::kWriteBack);
  EXPECT_EQ(h->cache->counters().lines_dirty, 18u);
  core->fail_writes = Status::Ok();  // space was freed
  ASSERT_TRUE(CleanAll().ok());
  const CacheCounters c = h->cache->counters();
  EXPECT_EQ(c.cleaner_write_errors, 6u);  // two attempts and the drain, two runs each
  EXPECT_EQ(c.cleaner_writes, 2u);
  EXPECT_EQ(c.bytes_written_core, 72 * kKiB);
  EXPECT_EQ(c.lines_dirty, 0u);
  EXPECT_EQ(h->cache->policy_report().cleaning_error, "");
  EXPECT_EQ(Core(), want);
  Logger::instance().set_sink(nullptr);
  Logger::instance().set_time_source(nullptr);
  // One line for the streak of three failed batches (two attempts, the drain), one for the way
  // back.
  EXPECT_EQ(log,
            "ts=T level=error event=cleaning_error core=core error=\"NoSpace: pwrite hdd.img: No "
            "space left on device\"\n"
            "ts=T level=info event=cleaning_recovered core=core failed_batches=3\n");
}

TEST(CleanerRetryTest, ThePauseDoublesUpToItsCap) {
  using std::chrono::seconds;
  EXPECT_EQ(Cleaner::RetryDelay(seconds(1), 1), seconds(1));
  EXPECT_EQ(Cleaner::RetryDelay(seconds(1), 2), seconds(2));
  EXPECT_EQ(Cleaner::RetryDelay(seconds(1), 5), seconds(16));
  EXPECT_EQ(Cleaner::RetryDelay(seconds(1), 6), seconds(30));
  EXPECT_EQ(Cleaner::RetryDelay(seconds(1), 1000000), seconds(30));
  EXPECT_EQ(Cleaner::RetryDelay(seconds(60), 3), seconds(60));  // never below idle_after
}

TEST_F(CleanerTest, AFailingCoreIsTriedLessAndLessOften) {
  Make(4096);
  core->fail_writes = Status::NoSpace("pwrite hdd.img: No space left on device");
  // Cleans as soon as anything is dirty: every new dirty line asks the policy again.
  CleaningOptions eager;
  eager.dirty_target = 0;
  ASSERT_TRUE(testing::SyncSetCleaning(h->loop, *h->cache, "target", eager).ok());
  Write(0, 64 * kKiB);
  h->loop.run_for(std::chrono::seconds(120));
  // At once, then after 1, 2, 4, 8, 16, 30 and 30 s: 8 tries in 120 s, not one a second.
  EXPECT_EQ(core->writes.size(), 8u);
  EXPECT_EQ(h->cache->counters().cleaner_write_errors, 8u);
  // New dirty data does not cut the pause (due at 121 s) short; a flush does, and says why it
  // failed.
  Write(1 << 20, 4 * kKiB);
  h->loop.run_for(std::chrono::milliseconds(500));
  EXPECT_EQ(core->writes.size(), 8u);
  EXPECT_EQ(CleanAll().code(), Status::Code::kNoSpace);
  EXPECT_EQ(core->writes.size(), 2u);  // CleanAll cleared the list: both runs were tried at once
}

// Each batch ends with one core flush, so the flushes count the batches.
TEST_F(CleanerTest, ScatteredLinesGoAtMostMaxBatchRunsPerBatch) {
  for (uint32_t max_runs : {64u, 6u}) {
    SCOPED_TRACE(max_runs);
    Make(4096);
    for (uint64_t i = 0; i < 20; ++i) Write(i * 8 * kKiB, 4 * kKiB);  // 20 runs of one line
    Write(1 << 20, 64 * kKiB);                                         // and one of 16 lines
    CleaningOptions o;
    o.max_batch_runs = max_runs;
    ASSERT_TRUE(testing::SyncSetCleaning(h->loop, *h->cache, "nop", o).ok());
    core->flushes = 0;
    ASSERT_TRUE(CleanAll().ok());
    EXPECT_EQ(core->writes.size(), 21u);
    // 21 runs: one batch, or 6 + 6 + 6 + 3 (the 16 adjacent lines are one run of the last).
    EXPECT_EQ(core->flushes, max_runs == 64 ? 1u : 4u);
    EXPECT_EQ(core->writes.back(), std::make_pair(uint64_t{1} << 20, 64 * kKiB));
    EXPECT_EQ(Core(), want);
    h->cache.reset();
  }
}

// A batch locks a group of adjacent lines only when it starts copying it, with at most
// writes_in_flight groups at once: a client write to a line of a running batch waits for those
// copies, not for the whole batch (which, of scattered blocks, is one HDD seek per line).
TEST_F(CleanerTest, AClientWriteWaitsOnlyForTheCopiesInFlight) {
  Make(4096);
  constexpr Nanos kSettle = std::chrono::milliseconds(100);  // memory devices: all done
  for (uint64_t i = 0; i < 20; ++i) Write(i * 8 * kKiB, 4 * kKiB);  // 20 scattered lines
  Write(1 << 20, 64 * kKiB);                                         // and 16 adjacent ones
  core->writes.clear();
  core->hold_writes = true;
  std::optional<Status> cleaned, late_write, early_write;
  {
    EventLoop::ScopedCurrent scope(&h->loop);
    h->cache->clean_all(nullptr, [&](Status s) { cleaned = s; });
  }
  h->loop.run_for(kSettle);
  // One batch of 21 groups, 4 of them (the default writes_in_flight) being copied.
  EXPECT_EQ(core->writes.size(), 4u);
  // A write to the 20th scattered line, whose group has not started: done at once.
  auto late = Pattern(9, 19 * 8 * kKiB, 4 * kKiB);
  // A write to the first line, whose copy is on its way to the core: waits for it.
  auto early = Pattern(9, 0, 4 * kKiB);
  {
    EventLoop::ScopedCurrent scope(&h->loop);
    h->cache->write(19 * 8 * kKiB, late, {}, [&](Status s) { late_write = s; });
    h->cache->write(0, early, {}, [&](Status s) { early_write = s; });
  }
  h->loop.run_for(kSettle);
  ASSERT_TRUE(late_write.has_value());
  EXPECT_TRUE(late_write->ok());
  EXPECT_FALSE(early_write.has_value());
  EXPECT_EQ(core->writes.size(), 4u);
  // Each finished group lets the next start.
  EXPECT_EQ(core->release_held(h->loop), 4u);
  h->loop.run_for(kSettle);
  ASSERT_TRUE(early_write.has_value());
  EXPECT_TRUE(early_write->ok());
  EXPECT_EQ(core->writes.size(), 8u);
  while (!cleaned && core->release_held(h->loop) > 0) h->loop.run_for(kSettle);
  ASSERT_TRUE(cleaned.has_value());
  EXPECT_TRUE(cleaned->ok());
  // 20 single lines and the 16 adjacent ones as one write; the late write's data went with its
  // line's group. The early write came after its line's copy: clean_all's next batch took it.
  EXPECT_EQ(core->writes.size(), 22u);
  EXPECT_EQ(core->writes.back(), std::make_pair(uint64_t{0}, 4 * kKiB));
  EXPECT_EQ(h->cache->counters().lines_dirty, 0u);
  std::copy(late.begin(), late.end(), want.begin() + 19 * 8 * kKiB);
  std::copy(early.begin(), early.end(), want.begin());
  EXPECT_EQ(Core(), want);
}

// An idle batch (the target policy's, after idle_after without a request) stops starting groups
// at the first client request: the copies in flight finish, the rest stays dirty until the
// cache is idle again.
TEST_F(CleanerTest, AnIdleBatchStopsForAClient) {
  Make(4096);
  constexpr Nanos kSettle = std::chrono::milliseconds(100);
  for (uint64_t i = 0; i < 20; ++i) Write(i * 8 * kKiB, 4 * kKiB);  // 20 scattered lines
  Write(1 << 20, 64 * kKiB);                                         // and 16 adjacent ones
  core->writes.clear();
  core->hold_writes = true;
  CleaningOptions o;
  o.max_batch_runs = 10;  // the batch takes 10 of the window's 21 runs
  ASSERT_TRUE(testing::SyncSetCleaning(h->loop, *h->cache, "target", o).ok());
  h->loop.run_for(std::chrono::milliseconds(1500));  // idle after 1 s: a batch of 10 groups
  EXPECT_EQ(core->writes.size(), 4u);
  std::vector<std::byte> buf(4 * kKiB);
  ASSERT_TRUE(testing::SyncRead(h->loop, *h->cache, 2 << 20, buf).ok());  // a client
  EXPECT_EQ(core->release_held(h->loop), 4u);
  h->loop.run_for(kSettle);
  EXPECT_EQ(core->writes.size(), 4u);
  EXPECT_EQ(h->cache->counters().lines_dirty, 32u);
  EXPECT_EQ(h->cache->counters().cleaned_lines, 4u);
  // Idle again: the rest goes.
  core->hold_writes = false;
  h->loop.run_for(std::chrono::seconds(3));
  EXPECT_EQ(core->writes.size(), 21u);
  // In LBA order from the first line the stopped batch did not start (not from the window's
  // 11th run, where the stopped batch would have ended).
  EXPECT_EQ(core->writes[4], std::make_pair(4 * 8 * kKiB, 4 * kKiB));
  EXPECT_TRUE(std::is_sorted(core->writes.begin() + 4, core->writes.end()));
  EXPECT_EQ(h->cache->counters().lines_dirty, 0u);
  EXPECT_EQ(Core(), want);
}

TEST(CleanerRunsTest, RunsPrefixCountsRunsOfAdjacentLines) {
  const std::vector<uint64_t> lines = {1, 2, 3, 7, 9, 10, 20};
  EXPECT_EQ(Cleaner::RunsPrefix(lines, 1), 3u);
  EXPECT_EQ(Cleaner::RunsPrefix(lines, 2), 4u);
  EXPECT_EQ(Cleaner::RunsPrefix(lines, 3), 6u);
  EXPECT_EQ(Cleaner::RunsPrefix(lines, 4), 7u);
  EXPECT_EQ(Cleaner::RunsPrefix(lines, 64), 7u);
  EXPECT_EQ(Cleaner::RunsPrefix({}, 1), 0u);
}

}  // namespace
}  // namespace tiercache
