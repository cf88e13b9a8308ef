// Randomized differential test: many concurrent, overlapping reads, writes, flushes, trims,
// write-zeroes, mode switches and restarts against a cache far smaller than the core, checked byte
// for byte against a plain reference image. Requests on one core line are ordered by submission,
// so the reference applies each write when it is submitted and computes each read's expected bytes
// then. Seeded: TIERCACHE_SEED=<n> reproduces a failure; TIERCACHE_DIFF_OPS sets the length.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "tests/support/cache_fixture.h"

namespace tiercache {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr uint64_t kDefaultOps = 150'000;
#else
constexpr uint64_t kDefaultOps = 2'000'000;
#endif

uint64_t EnvOr(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v ? std::strtoull(v, nullptr, 10) : fallback;
}

class DifferentialRun {
 public:
  // With commit_before_ack, crashes come without a flush first: every acknowledged write must
  // survive a kill -9 anyway.
  DifferentialRun(uint64_t seed, uint32_t line_size, bool commit_before_ack = false)
      : rng_(seed), commit_before_ack_(commit_before_ack), h_(uint64_t(line_size) * 40, 16 << 20, [&] {
          FormatOptions f;
          f.line_size = line_size;
          f.mode = CacheMode::kWriteBack;
          return f;
        }(), [&] {
          CacheOptions o;
          o.shards = 4;
          o.commit_before_ack = commit_before_ack;
          o.cleaning_options.dirty_high = 0.6;
          o.cleaning_options.idle_after = std::chrono::microseconds(200);
          o.policies.sequential =
              SequentialOptions{.read_cutoff_bytes = 16384, .write_cutoff_bytes = 16384};
          return o;
        }()),
        reference_(16 << 20) {
    h_.open();
  }

  void run(uint64_t ops) {
    for (uint64_t i = 0; i < ops && !::testing::Test::HasFailure(); ++i) {
      step();
      // Let some completions happen between submissions; sometimes drain fully.
      uint32_t spins = rng_() % 4;
      for (uint32_t k = 0; k < spins; ++k) h_.loop.run_one();
      if (inflight_ >= 32) drain_some();
    }
    h_.loop.run_until([&] { return inflight_ == 0; });
    verify_all();
  }

  uint64_t completed() const { return completed_; }
  // Requests the sequential detector sent around the cache, over every restart.
  uint64_t sequential_bypasses() const { return bypasses_before_restart_ + bypasses_since_open(); }

 private:
  // The cache's counters start again at zero on each open.
  uint64_t bypasses_since_open() const {
    uint64_t n = 0;
    for (const auto& [name, value] : h_.cache->policy_report().sequential_counters) {
      if (name == "bypassed_read_requests" || name == "bypassed_write_requests") n += value;
    }
    return n;
  }

  uint64_t pick_offset(uint64_t len) {
    const uint64_t size = reference_.size();
    uint64_t region = (rng_() % 4 == 0) ? size : size / 8;  // 75% in a hot eighth
    // A request of 512-byte sectors starts on any 512-byte boundary (a 512e disk).
    const uint64_t granule = len % 4096 ? 512 : 4096;
    uint64_t off = (rng_() % (region / granule)) * granule;
    // A third of the requests continue where the last one ended: streams that pass the 16 KiB
    // sequential cutoff, so bypassed reads and writes meet cached and dirty data in every mode.
    if (rng_() % 3 == 0) off = last_end_;
    if (off + len > size) off = size - len;
    last_end_ = off + len;
    return off;
  }
  uint64_t pick_length() {
    // A quarter in 512-byte sectors, 512 bytes to 12 KiB, not a multiple of 4 KiB: partial sectors.
    if (rng_() % 4 == 0) {
      uint64_t n = 1 + rng_() % 24;
      if (n % 8 == 0) ++n;
      return n * 512;
    }
    // Mostly small requests, as on a desktop; some span several lines.
    static constexpr uint64_t kSizes[] = {4096, 4096, 4096, 8192, 12288, 16384, 32768, 65536,
                                          131072, 262144};
    return kSizes[rng_() % 10];
  }

  void step() {
    uint32_t r = rng_() % 1000;
    if (r < 450) return submit_read();
    if (r < 880) return submit_write();
    if (r < 920) return submit_trim();
    if (r < 960) return submit_zeroes();
    if (r < 985) return submit_flush();
    if (r < 995) return switch_mode();
    return restart();
  }

  void submit_read() {
    uint64_t len = pick_length(), off = pick_offset(len);
    auto buf = std::make_shared<std::vector<std::byte>>(len);
    auto expect = std::make_shared<std::vector<std::byte>>(reference_.begin() + off,
                                                           reference_.begin() + off + len);
    ++inflight_;
    EventLoop::ScopedCurrent scope(&h_.loop);
    h_.cache->read(off, *buf, [this, buf, expect, off](Status s) {
      ASSERT_TRUE(s.ok()) << s.ToString();
      if (*buf != *expect) {
        size_t i = 0;
        while ((*buf)[i] == (*expect)[i]) ++i;
        ADD_FAILURE() << "read at " << off << " differs at byte " << i << " (core offset "
                      << off + i << ")";
      }
      done();
    });
  }

  void submit_write() {
    uint64_t len = pick_length(), off = pick_offset(len);
    auto data = std::make_shared<std::vector<std::byte>>(testing::Pattern(rng_(), off, len));
    std::copy(data->begin(), data->end(), reference_.begin() + off);
    WriteFlags flags{.fua = rng_() % 50 == 0};
    ++inflight_;
    EventLoop::ScopedCurrent scope(&h_.loop);
    h_.cache->write(off, *data, flags, [this, data](Status s) {
      ASSERT_TRUE(s.ok()) << s.ToString();
      done();
    });
  }

  void submit_trim() {
    uint64_t len = pick_length(), off = pick_offset(len);
    // TRIM is advisory: the cache drops the whole 4 KiB sectors inside (reading zeros from the
    // core here) and leaves partial ones as they are.
    const uint64_t first = (off + 4095) / 4096 * 4096, last = (off + len) / 4096 * 4096;
    if (first < last) std::fill(reference_.begin() + first, reference_.begin() + last, std::byte{0});
    ++inflight_;
    EventLoop::ScopedCurrent scope(&h_.loop);
    h_.cache->discard(off, len, [this](Status s) {
      ASSERT_TRUE(s.ok()) << s.ToString();
      done();
    });
  }

  void submit_zeroes() {
    uint64_t len = pick_length(), off = pick_offset(len);
    std::fill(reference_.begin() + off, reference_.begin() + off + len, std::byte{0});
    ++inflight_;
    EventLoop::ScopedCurrent scope(&h_.loop);
    h_.cache->write_zeroes(off, len, {}, [this](Status s) {
      ASSERT_TRUE(s.ok()) << s.ToString();
      done();
    });
  }

  void submit_flush() {
    ++inflight_;
    EventLoop::ScopedCurrent scope(&h_.loop);
    h_.cache->flush([this](Status s) {
      ASSERT_TRUE(s.ok()) << s.ToString();
      done();
    });
  }

  void switch_mode() {
    static constexpr CacheMode kModes[] = {CacheMode::kWriteThrough, CacheMode::kWriteBack,
                                           CacheMode::kWriteAround, CacheMode::kPassThrough};
    CacheMode m = kModes[rng_() % 4];
    bool drain = rng_() % 2;
    ++inflight_;
    EventLoop::ScopedCurrent scope(&h_.loop);
    h_.cache->set_mode(m, drain, [this](Status s) {
      ASSERT_TRUE(s.ok()) << s.ToString();
      done();
    });
  }

  // With nothing in flight: a clean restart, or a crash (no close) after a flush, or, with
  // commit_before_ack, without one. Either way every acknowledged write must survive.
  void restart() {
    h_.loop.run_until([&] { return inflight_ == 0; });
    bypasses_before_restart_ += bypasses_since_open();
    if (rng_() % 2) {
      h_.restart();
    } else {
      if (!commit_before_ack_) {
        ASSERT_TRUE(testing::SyncFlush(h_.loop, *h_.cache).ok());
      }
      h_.crash_restart();
    }
  }

  void drain_some() {
    h_.loop.run_until([&] { return inflight_ < 16; });
  }

  void done() {
    --inflight_;
    ++completed_;
  }

  void verify_all() {
    std::vector<std::byte> got(reference_.size());
    for (uint64_t off = 0; off < got.size(); off += 1 << 20) {
      ASSERT_TRUE(testing::SyncRead(h_.loop, *h_.cache, off,
                                    std::span<std::byte>(got.data() + off, 1 << 20))
                      .ok());
    }
    ASSERT_TRUE(got == reference_) << "final image differs";
    ASSERT_TRUE(testing::SyncCleanAll(h_.loop, *h_.cache).ok());
    h_.core_mem.read_now(0, got);
    ASSERT_TRUE(got == reference_) << "core after cleaning differs";
  }

  std::mt19937_64 rng_;
  const bool commit_before_ack_;
  uint64_t last_end_ = 0;
  testing::CacheHarness h_;
  std::vector<std::byte> reference_;
  uint64_t inflight_ = 0, completed_ = 0;
  uint64_t bypasses_before_restart_ = 0;
};

void RunDifferential(bool commit_before_ack, uint64_t default_ops) {
  const uint64_t seed = EnvOr("TIERCACHE_SEED", std::random_device{}());
  const uint64_t ops = EnvOr("TIERCACHE_DIFF_OPS", default_ops);
  for (uint32_t line_size : {4096u, 16384u, 65536u}) {
    SCOPED_TRACE("seed " + std::to_string(seed) + " line_size " + std::to_string(line_size) +
                 " (rerun with TIERCACHE_SEED=" + std::to_string(seed) + ")");
    DifferentialRun run(seed, line_size, commit_before_ack);
    run.run(ops / 3);
    std::printf("seed %llu line %u: %llu requests checked, %llu bypassed as sequential\n",
                (unsigned long long)seed, line_size, (unsigned long long)run.completed(),
                (unsigned long long)run.sequential_bypasses());
    EXPECT_GT(run.sequential_bypasses(), 0u);
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(DifferentialTest, RandomOpsMatchReferenceImage) { RunDifferential(false, kDefaultOps); }

// ublk with user recovery: the kernel keeps every acknowledgement across a crash of the server.
TEST(DifferentialTest, WithCommitBeforeAckUnflushedAcknowledgedWritesSurviveProcessCrashes) {
  RunDifferential(true, kDefaultOps / 4);
}

}  // namespace
}  // namespace tiercache
