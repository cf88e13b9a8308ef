// CrashWorkload: drives a CacheHarness's cache with a random mix of overlapping reads, writes, FUA
// writes, WRITE_ZEROES, TRIMs, FLUSHes and mode switches, in 512-byte sectors and in 4 KiB ones,
// many in flight at once, and keeps a SectorModel of what each sector may hold after a crash.
// Crash tests stop it at a random point (between or inside requests), crash the devices or the
// process, reopen, and verify(). Does not own the harness. Test-only; single-threaded.
#pragma once

#include <cstdlib>

#include <cstdint>
#include <functional>
#include <random>

#include "tests/support/cache_fixture.h"
#include "tests/support/sector_model.h"

namespace tiercache::testing {

// The line size (4 or 16 KiB) and the mode the cache starts in (any of the four), from `seed`.
FormatOptions CrashFormatOptions(uint64_t seed);

// The core the crash tests use, and their rounds by default (fewer under ASan).
inline constexpr uint64_t kCrashCore = 4 << 20;
#if defined(__SANITIZE_ADDRESS__)
inline constexpr uint64_t kCrashRounds = 16;
#else
inline constexpr uint64_t kCrashRounds = 40;
#endif

// The environment variable `name` as a number, or `fallback` (TIERCACHE_SEED, ...).
inline uint64_t EnvOr(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v ? std::strtoull(v, nullptr, 10) : fallback;
}
// Two shards, an eager cleaner and 16 KiB sequential cutoffs, so a short run cleans, evicts and
// bypasses.
CacheOptions CrashCacheOptions(bool commit_before_ack);

class CrashWorkload {
 public:
  // `durable_acks`: every acknowledged write, TRIM or WRITE_ZEROES is durable (commit_before_ack).
  CrashWorkload(uint64_t seed, CacheHarness& h, bool durable_acks);

  // Submits `ops` random requests (up to 24 in flight), then a few more, then runs a random number
  // of loop steps: it returns with requests in flight, at a point that may be inside any of them.
  void run(uint64_t ops);
  // The devices lost power: requests may fail from now on.
  void expect_errors() { errors_ok_ = true; }
  // The crash point of a process crash: completions from now on promise nothing.
  void freeze() { frozen_ = true; }
  // A new instance runs after verify(): requests must succeed and count again.
  void resume() { errors_ok_ = frozen_ = false; }
  // Runs the loop until every submitted request completed (or failed); fails the test if some
  // never complete.
  void drain();
  // On the reopened cache: every sector holds a value from its last durable write on; then, after
  // cleaning everything, the core holds what the cache served (TRIMmed sectors aside). The model
  // then settles on what was read, so the workload can go on for another crash.
  void verify();

  const SectorModel& model() const { return model_; }

 private:
  void step();
  uint64_t pick_length();
  uint64_t pick_offset(uint64_t length);
  void submit_read();
  void submit_write(bool zeroes);
  void submit_trim();
  void submit_flush();
  void switch_mode();
  // Counts a completion; runs `apply` if it succeeded and still counts.
  void finish(const char* op, const Status& s, const std::function<void()>& apply);

  std::mt19937_64 rng_;
  CacheHarness& h_;
  const bool durable_acks_;
  SectorModel model_;
  uint64_t in_flight_ = 0;
  uint64_t last_end_ = 0;
  bool errors_ok_ = false;
  bool frozen_ = false;
};

}  // namespace tiercache::testing
