// Power-cut test of the durability contract in every mode: both devices sit behind volatile write
// caches (FaultInjectingDevice); a random workload (tests/support/crash_workload.h: reads, writes,
// FUA writes, WRITE_ZEROES, TRIMs, FLUSHes, mode switches, 512-byte and 4 KiB requests, many in
// flight, background cleaning) runs in virtual time; power is cut at a random point, often inside
// requests; a new Cache opens on what survived. Every sector must then hold its value as of its
// last durable write (FLUSH or FUA) or a later one, never anything older, and what the cache
// serves must be what the core holds once cleaned. Seeded: TIERCACHE_SEED reproduces a failure.
#include <gtest/gtest.h>

#include <random>

#include "cachelib/device/fault_injecting_device.h"
#include "tests/support/crash_workload.h"

namespace tiercache {
namespace {

using testing::EnvOr;
using testing::kCrashCore;
using testing::kCrashRounds;

class PowerCutRound {
 public:
  explicit PowerCutRound(uint64_t seed)
      : rng_(seed),
        format_(testing::CrashFormatOptions(seed)),
        h_(64 * format_.line_size, kCrashCore, format_, testing::CrashCacheOptions(false)),
        ssd_(h_.ssd_mem, "ssd"),
        core_(h_.core_mem, "core") {
    h_.ssd = &ssd_;
    h_.core = &core_;
    h_.open();
    workload_.emplace(seed, h_, /*durable_acks=*/false);
  }

  // Runs `ops` requests and cuts the power, `crashes` times: the second cut meets a cache that
  // recovered from the first.
  void run(uint64_t ops, int crashes) {
    SCOPED_TRACE("mode " + std::string(ModeName(format_.mode)) + ", line size " +
                 std::to_string(format_.line_size));
    for (int crash = 0; crash < crashes && !::testing::Test::HasFailure(); ++crash) {
      SCOPED_TRACE("power cut " + std::to_string(crash + 1));
      workload_->run(ops);
      if (::testing::Test::HasFailure()) return;
      cut_power_and_reopen();
      if (::testing::Test::HasFailure()) return;
      workload_->verify();
      workload_->resume();
    }
  }

 private:
  void cut_power_and_reopen() {
    std::optional<uint64_t> keep;
    if (rng_() % 2) keep = rng_();  // some unflushed writes survive, as on real disks
    workload_->expect_errors();
    int cut = 0;
    {
      EventLoop::ScopedCurrent scope(&h_.loop);
      ssd_.power_cut([&](Status s) { cut += s.ok(); }, keep);
      core_.power_cut([&](Status s) { cut += s.ok(); }, keep);
    }
    // Not run_until_idle(): the old instance's cleaner keeps retrying against dead devices.
    h_.loop.run_until([&] { return cut == 2; });
    ASSERT_EQ(cut, 2);
    workload_->drain();  // requests in flight at the cut fail
    (void)testing::SyncClose(h_.loop, *h_.cache);  // fails: the devices are off
    h_.cache.reset();
    ssd_.reset();
    core_.reset();
    h_.open();
  }

  std::mt19937_64 rng_;
  FormatOptions format_;
  testing::CacheHarness h_;
  FaultInjectingDevice ssd_, core_;
  std::optional<testing::CrashWorkload> workload_;
};

TEST(CrashTest, DurableDataSurvivesPowerCutsInsideRequestsInEveryMode) {
  const uint64_t seed = EnvOr("TIERCACHE_SEED", std::random_device{}());
  const uint64_t rounds = EnvOr("TIERCACHE_CRASH_ROUNDS", kCrashRounds);
  for (uint64_t round = 0; round < rounds && !::testing::Test::HasFailure(); ++round) {
    SCOPED_TRACE("rerun with TIERCACHE_SEED=" + std::to_string(seed) + " (round " +
                 std::to_string(round) + ")");
    PowerCutRound(seed + round).run(100 + (seed + round) % 100, 2);
  }
}

// The round that found a line reused while its durable record still said dirty (write-around,
// 4 KiB lines: the line was cleaned, dirtied, cleaned again; an older clean staging released it;
// ShardTrustTest.AnOlderCleanStagingDoesNotReleaseALineCleanedAgain has it alone).
TEST(CrashTest, SeedThatReusedALineCleanedTwice) {
  constexpr uint64_t kSeed = 243298380;
  PowerCutRound(kSeed).run(100 + kSeed % 100, 2);
}

}  // namespace
}  // namespace tiercache
