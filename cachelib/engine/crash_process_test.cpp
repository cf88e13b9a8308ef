// Process-crash test of CacheOptions::commit_before_ack (tiercached --commit-acks, ublk with user
// recovery): the random workload of crash_test runs in every mode with requests in flight; the
// process dies at a random point (CacheHarness::crash_restart: the devices keep everything
// written, nothing is flushed first); a new Cache opens. Every write, TRIM and WRITE_ZEROES
// acknowledged before the crash must have survived, flushed or not. Seeded: TIERCACHE_SEED.
#include <gtest/gtest.h>

#include <random>

#include "tests/support/crash_workload.h"

namespace tiercache {
namespace {

using testing::EnvOr;
using testing::kCrashCore;
using testing::kCrashRounds;

void ProcessCrashRound(uint64_t seed, uint64_t ops) {
  const FormatOptions format = testing::CrashFormatOptions(seed);
  SCOPED_TRACE("mode " + std::string(ModeName(format.mode)) + ", line size " +
               std::to_string(format.line_size));
  testing::CacheHarness h(64 * format.line_size, kCrashCore, format, testing::CrashCacheOptions(true));
  h.open();
  testing::CrashWorkload workload(seed, h, /*durable_acks=*/true);
  for (int crash = 1; crash <= 2 && !::testing::Test::HasFailure(); ++crash) {
    SCOPED_TRACE("process crash " + std::to_string(crash));
    workload.run(ops);
    if (::testing::Test::HasFailure()) return;
    workload.freeze();  // acknowledgements after the crash point promise nothing
    h.crash_restart();
    if (::testing::Test::HasFailure()) return;
    workload.verify();
    workload.resume();
  }
}

TEST(CrashProcessTest, WithCommitBeforeAckEveryAcknowledgedWriteSurvivesAProcessCrash) {
  const uint64_t seed = EnvOr("TIERCACHE_SEED", std::random_device{}());
  const uint64_t rounds = EnvOr("TIERCACHE_CRASH_ROUNDS", kCrashRounds);
  for (uint64_t round = 0; round < rounds && !::testing::Test::HasFailure(); ++round) {
    SCOPED_TRACE("rerun with TIERCACHE_SEED=" + std::to_string(seed) + " (round " +
                 std::to_string(round) + ")");
    ProcessCrashRound(seed + round, 100 + (seed + round) % 100);
  }
}

}  // namespace
}  // namespace tiercache
