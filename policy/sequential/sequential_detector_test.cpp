#include "policy/sequential/sequential_detector.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <thread>
#include <tuple>

namespace tiercache {
namespace {

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = 1024 * kKiB;
constexpr uint64_t kGiB = 1024 * kMiB;
constexpr uint64_t kReq = 128 * kKiB;
constexpr bool kRead = false;
constexpr bool kWrite = true;

std::map<std::string, uint64_t> Counters(const SequentialDetector& d) {
  std::map<std::string, uint64_t> out;
  d.visit_counters([&](std::string_view name, uint64_t v) { out[std::string(name)] = v; });
  return out;
}

// Request k (1-based) of a 128 KiB stream starting at `base`.
uint64_t At(uint64_t base, int k) { return base + uint64_t(k - 1) * kReq; }

// Cutoff 4 MiB = 32 x 128 KiB. Request k starts at (k-1) x 128 KiB, so the stream spanned
// (k-1) x 128 KiB before it: bypass iff (k-1) x 128 KiB >= 4096 KiB iff k >= 33. Request 32
// reaches the cutoff exactly and is still cached.
TEST(SequentialDetectorTest, FourMiBCutoffBypassesFrom33rdRequestOf128KiB) {
  SequentialDetector d(SequentialOptions{});
  for (int k = 1; k <= 40; ++k) {
    EXPECT_EQ(d.observe(At(0, k), kReq, kWrite), k >= 33) << "request " << k;
  }
  auto c = Counters(d);
  EXPECT_EQ(c["bypassed_write_requests"], 8u);
  EXPECT_EQ(c["bypassed_write_bytes"], 8 * kReq);
  EXPECT_EQ(c["bypassed_read_requests"], 0u);
  EXPECT_EQ(c["bypassed_read_bytes"], 0u);
  EXPECT_EQ(c["streams_tracked"], 1u);
}

// 3 MiB requests: before request 2 the stream spanned 3 MiB < 4 MiB, so request 2 (which crosses
// the cutoff) is cached; request 3 sees 6 MiB and bypasses.
TEST(SequentialDetectorTest, RequestCrossingTheCutoffIsCached) {
  SequentialDetector d(SequentialOptions{});
  EXPECT_FALSE(d.observe(0, 3 * kMiB, kRead));
  EXPECT_FALSE(d.observe(3 * kMiB, 3 * kMiB, kRead));
  EXPECT_TRUE(d.observe(6 * kMiB, 3 * kMiB, kRead));
  EXPECT_EQ(Counters(d)["bypassed_read_bytes"], 3 * kMiB);
}

TEST(SequentialDetectorTest, SixtyFourInterleavedStreamsAllDetected) {
  SequentialDetector d(SequentialOptions{});
  for (int k = 1; k <= 40; ++k) {
    for (uint64_t s = 0; s < 64; ++s) {
      EXPECT_EQ(d.observe(At(s * kGiB, k), kReq, kRead), k >= 33) << "stream " << s;
    }
  }
  auto c = Counters(d);
  EXPECT_EQ(c["bypassed_read_requests"], 64u * 8);
  EXPECT_EQ(c["bypassed_read_bytes"], 64u * 8 * kReq);
  EXPECT_EQ(c["streams_tracked"], 64u);
}

TEST(SequentialDetectorTest, SixtyFifthStreamEvictsLeastRecentlyUsed) {
  SequentialDetector d(SequentialOptions{});
  // 32 rounds: every stream spans exactly the cutoff; stream 0 is the least recently used.
  for (int k = 1; k <= 32; ++k) {
    for (uint64_t s = 0; s < 64; ++s) ASSERT_FALSE(d.observe(At(s * kGiB, k), kReq, kRead));
  }
  EXPECT_FALSE(d.observe(64 * kGiB, kReq, kRead));  // stream 64 replaces stream 0
  EXPECT_TRUE(d.observe(At(1 * kGiB, 33), kReq, kRead));   // still tracked
  EXPECT_FALSE(d.observe(At(0 * kGiB, 33), kReq, kRead));  // forgotten: a new stream (evicts 2)
  EXPECT_FALSE(d.observe(At(2 * kGiB, 33), kReq, kRead));  // forgotten (evicts 3)
  EXPECT_FALSE(d.observe(At(3 * kGiB, 33), kReq, kRead));  // forgotten (evicts 4)
  EXPECT_TRUE(d.observe(At(5 * kGiB, 33), kReq, kRead));
  EXPECT_EQ(Counters(d)["streams_tracked"], 64u);
}

TEST(SequentialDetectorTest, ReadsAndWritesTrackedApart) {
  SequentialDetector d(SequentialOptions{});
  // 64 read and 64 write streams at once: each direction has its own 64 entries.
  for (int k = 1; k <= 40; ++k) {
    for (uint64_t s = 0; s < 64; ++s) {
      EXPECT_EQ(d.observe(At(s * kGiB, k), kReq, kRead), k >= 33);
      EXPECT_EQ(d.observe(At((100 + s) * kGiB, k), kReq, kWrite), k >= 33);
    }
  }
  auto c = Counters(d);
  EXPECT_EQ(c["streams_tracked"], 128u);
  EXPECT_EQ(c["bypassed_read_requests"], 64u * 8);
  EXPECT_EQ(c["bypassed_write_requests"], 64u * 8);
  // A write starting where a bypassed read stream ends starts a write stream of its own.
  EXPECT_TRUE(d.observe(At(0, 41), kReq, kRead));
  EXPECT_FALSE(d.observe(At(0, 42), kReq, kWrite));
}

TEST(SequentialDetectorTest, RandomRequestsDoNotBreakAStream) {
  SequentialDetector d(SequentialOptions{});
  int random = 0;
  auto random_read = [&] {
    // Distinct 1 GiB slots past 2 TiB, visited in a scattered order (7919 is prime to 1000).
    uint64_t slot = uint64_t(random++) * 7919 % 1000;
    return d.observe(2048 * kGiB + slot * kGiB, 4 * kKiB, kRead);
  };
  for (int k = 1; k <= 40; ++k) {
    EXPECT_EQ(d.observe(At(0, k), kReq, kRead), k >= 33) << "request " << k;
    EXPECT_FALSE(random_read());
    EXPECT_FALSE(random_read());
    if (k == 24) {
      EXPECT_FALSE(d.observe(kMiB, 4 * kKiB, kRead));  // inside the stream's span
    }
  }
  auto c = Counters(d);
  EXPECT_EQ(c["bypassed_read_requests"], 8u);
  EXPECT_EQ(c["streams_tracked"], 64u);  // 81 one-request streams came and went around it
}

TEST(SequentialDetectorTest, OnlyExactContinuationJoins) {
  SequentialOptions o;
  o.read_cutoff_bytes = 256 * kKiB;
  SequentialDetector d(o);
  EXPECT_FALSE(d.observe(0, kReq, kRead));
  EXPECT_FALSE(d.observe(kReq, kReq, kRead));      // span 128 KiB before it
  EXPECT_TRUE(d.observe(2 * kReq, kReq, kRead));   // span 256 KiB: bypass
  // A 4 KiB gap, or a read inside the stream that does not reach its end, starts a new stream.
  EXPECT_FALSE(d.observe(3 * kReq + 4 * kKiB, kReq, kRead));
  EXPECT_FALSE(d.observe(kReq, 4 * kKiB, kRead));
  EXPECT_EQ(Counters(d)["bypassed_read_requests"], 1u);
}

// Random 4 KiB reads over a small file never look like a stream (the regression: a join window
// of 64 KiB either way bypassed half of CrystalDiskMark's random reads over its test file).
TEST(SequentialDetectorTest, RandomReadsOverASmallAreaNeverBypass) {
  SequentialDetector d(SequentialOptions{});
  std::mt19937_64 rng(7);
  for (int i = 0; i < 100000; ++i) {
    ASSERT_FALSE(d.observe(rng() % 4096 * 4 * kKiB, 4 * kKiB, kRead)) << i;
  }
}

TEST(SequentialDetectorTest, RewritingATailDoesNotLengthenTheStream) {
  SequentialDetector d(SequentialOptions{});
  // A journal rewriting its last block: 10,000 x 4 KiB = 40 MiB written, span stays 4 KiB.
  for (int i = 0; i < 10000; ++i) ASSERT_FALSE(d.observe(kGiB, 4 * kKiB, kWrite));
  EXPECT_EQ(Counters(d)["streams_tracked"], 1u);
}

TEST(SequentialDetectorTest, DisabledNeverBypasses) {
  SequentialOptions o;
  o.enabled = false;
  o.read_cutoff_bytes = 0;  // not checked when disabled
  ASSERT_TRUE(o.validate().ok());
  SequentialDetector d(o);
  for (int k = 1; k <= 1000; ++k) {
    ASSERT_FALSE(d.observe(At(0, k), kReq, kRead));
    ASSERT_FALSE(d.observe(At(0, k), kReq, kWrite));
  }
  for (auto& [name, value] : Counters(d)) EXPECT_EQ(value, 0u) << name;
  EXPECT_EQ(d.memory_size(), 0u);
}

// Reads: 1 MiB = 8 x 128 KiB, bypass from request 9. Writes: 2 MiB = 16 x 128 KiB, from 17.
TEST(SequentialDetectorTest, CutoffPerDirection) {
  SequentialOptions o;
  o.read_cutoff_bytes = 1 * kMiB;
  o.write_cutoff_bytes = 2 * kMiB;
  SequentialDetector d(o);
  for (int k = 1; k <= 20; ++k) {
    EXPECT_EQ(d.observe(At(0, k), kReq, kRead), k >= 9) << "read " << k;
    EXPECT_EQ(d.observe(At(kGiB, k), kReq, kWrite), k >= 17) << "write " << k;
  }
  auto c = Counters(d);
  EXPECT_EQ(c["bypassed_read_requests"], 12u);
  EXPECT_EQ(c["bypassed_write_requests"], 4u);
  EXPECT_EQ(c["bypassed_read_bytes"], 12 * kReq);
  EXPECT_EQ(c["bypassed_write_bytes"], 4 * kReq);
}

// Each thread runs one read and one write stream of 2000 requests: 2000 - 32 bypassed each.
TEST(SequentialDetectorTest, ConcurrentObserveCountsExactly) {
  SequentialDetector d(SequentialOptions{});
  constexpr int kRequests = 2000;
  int bypassed[2] = {0, 0};
  auto run = [&](int t) {
    uint64_t base = uint64_t(t) * 1024 * kGiB;
    for (int k = 1; k <= kRequests; ++k) {
      bypassed[t] += d.observe(At(base, k), kReq, kRead);
      bypassed[t] += d.observe(At(base, k), kReq, kWrite);
    }
  };
  std::thread a(run, 0), b(run, 1);
  a.join();
  b.join();
  EXPECT_EQ(bypassed[0], 2 * (kRequests - 32));
  EXPECT_EQ(bypassed[1], 2 * (kRequests - 32));
  auto c = Counters(d);
  EXPECT_EQ(c["bypassed_read_requests"], 2u * (kRequests - 32));
  EXPECT_EQ(c["bypassed_write_requests"], 2u * (kRequests - 32));
  EXPECT_EQ(c["bypassed_write_bytes"], 2u * (kRequests - 32) * kReq);
  EXPECT_EQ(c["streams_tracked"], 4u);
}

TEST(SequentialDetectorTest, MemoryIsTwentyBytesPerStreamPerDirectionPlusReadHistory) {
  EXPECT_EQ(SequentialDetector(SequentialOptions{}).memory_size(), 2u * 64 * 20 + 64 * 24);
  SequentialOptions o;
  o.streams = 4096;
  EXPECT_EQ(SequentialDetector(o).memory_size(), 2u * 4096 * 20 + 4096 * 24);
}

// A file of 8 MiB read twice (no cache size given: any extent may repeat): the first pass
// bypasses requests 33-64 (4 MiB); the second pass is a new stream (it starts at 0), caches
// requests 1-32 as usual and then reads what the first pass bypassed: a repeat, cached too.
// Writes stay bypassed on every pass.
TEST(SequentialDetectorTest, AFileReadAgainIsCachedAsARepeat) {
  SequentialDetector d(SequentialOptions{});
  for (int pass = 1; pass <= 2; ++pass) {
    for (int k = 1; k <= 64; ++k) {
      EXPECT_EQ(d.observe(At(0, k), kReq, kRead), pass == 1 && k >= 33) << pass << " " << k;
      EXPECT_EQ(d.observe(At(kGiB, k), kReq, kWrite), k >= 33) << pass << " " << k;
    }
  }
  auto c = Counters(d);
  EXPECT_EQ(c["bypassed_read_requests"], 32u);
  EXPECT_EQ(c["bypassed_read_bytes"], 4 * kMiB);
  EXPECT_EQ(c["repeated_read_requests"], 32u);
  EXPECT_EQ(c["repeated_read_bytes"], 4 * kMiB);
  EXPECT_EQ(c["bypassed_write_requests"], 64u);
  EXPECT_EQ(c["room_read_requests"], 0u);
}

// With an 8 MiB cache the horizon is 128 MiB of reads. The first pass's history was last read
// when 8 MiB had been read; the second pass's request 33 brings the count to 8 MiB + `between`
// + 4 MiB + 128 KiB: a repeat while that is within 128 MiB of 8 MiB, so up to 123.875 MiB
// between. (The 4 MiB the first pass bypassed fit in half the cache.)
TEST(SequentialDetectorTest, ARepeatIsForgottenAfterSixteenCachesOfReads) {
  for (uint64_t between : {123 * kMiB, 124 * kMiB}) {
    SequentialDetector d(SequentialOptions{}, 8 * kMiB);
    for (int k = 1; k <= 64; ++k) ASSERT_EQ(d.observe(At(0, k), kReq, kRead), k >= 33);
    // Other reads, none past a cutoff: each 1 MiB a stream of its own.
    for (uint64_t b = 0; b < between; b += kMiB) ASSERT_FALSE(d.observe(kGiB + 3 * b, kMiB, kRead));
    for (int k = 1; k <= 32; ++k) ASSERT_FALSE(d.observe(At(0, k), kReq, kRead));
    EXPECT_EQ(d.observe(At(0, 33), kReq, kRead), between == 124 * kMiB) << between;
  }
}

// A stream reading again an extent is cached in the first half cache of it and bypassed past
// that: a loop larger than the cache keeps a fixed part instead of churning. The first pass
// bypasses 4 MiB (requests 33-64); on the second pass an 8 MiB cache takes all 32 of them as
// repeats, a 6 MiB one the 24 that start within 3 MiB of the extent's start, a 2 MiB one 8.
TEST(SequentialDetectorTest, OnlyTheFirstHalfCacheOfAnExtentIsARepeat) {
  for (auto [cache, repeats] : {std::pair{8 * kMiB, 32u}, {6 * kMiB, 24u}, {2 * kMiB, 8u}}) {
    SequentialDetector d(SequentialOptions{}, cache);
    for (int k = 1; k <= 64; ++k) ASSERT_EQ(d.observe(At(0, k), kReq, kRead), k >= 33) << k;
    for (int k = 1; k <= 64; ++k) {
      ASSERT_EQ(d.observe(At(0, k), kReq, kRead), k >= 33 + int(repeats)) << cache << " " << k;
    }
    auto c = Counters(d);
    EXPECT_EQ(c["repeated_read_requests"], repeats) << cache;
    EXPECT_EQ(c["bypassed_read_requests"], 64u - repeats) << cache;
  }
}

// Behind `always` (set_admission_refuses(false)) only an extent of at most half the cache is a
// repeat, all of it: the 4 MiB the first pass bypassed is one with an 8 MiB cache, not with a
// 6 MiB one. Set back, the first half cache of the extent is a repeat again (24 requests of 32
// with the 6 MiB cache).
TEST(SequentialDetectorTest, BehindAlwaysOnlyAnExtentOfAtMostHalfTheCacheIsARepeat) {
  for (auto [cache, repeats, later] : {std::tuple{8 * kMiB, 32u, 32u}, {6 * kMiB, 0u, 24u}}) {
    SequentialDetector d(SequentialOptions{}, cache);
    d.set_admission_refuses(false);
    for (int pass = 1; pass <= 2; ++pass) {
      for (int k = 1; k <= 64; ++k) d.observe(At(0, k), kReq, kRead);
    }
    auto c = Counters(d);
    EXPECT_EQ(c["repeated_read_requests"], repeats) << cache;
    EXPECT_EQ(c["bypassed_read_requests"], 64u - repeats) << cache;
    d.set_admission_refuses(true);
    for (int k = 1; k <= 64; ++k) d.observe(At(0, k), kReq, kRead);
    EXPECT_EQ(Counters(d)["repeated_read_requests"], repeats + later) << cache;
  }
}

struct FixedRoom final : CacheRoom {
  explicit FixedRoom(bool room) : room(room) {}
  bool has_room() const override { return room; }
  bool room;
};

// While the cache has room a read stream past the cutoff is cached (there is nothing to push
// out); a write stream is bypassed all the same.
TEST(SequentialDetectorTest, ReadsPastTheCutoffAreCachedWhileTheCacheHasRoom) {
  SequentialDetector d(SequentialOptions{});
  const FixedRoom room(true), full(false);
  for (int k = 1; k <= 40; ++k) {
    EXPECT_FALSE(d.observe(At(0, k), kReq, kRead, nullptr, &room)) << k;
    EXPECT_EQ(d.observe(At(kGiB, k), kReq, kWrite, nullptr, &room), k >= 33) << k;
  }
  // Full now: the stream goes on past its cutoff and bypasses.
  EXPECT_TRUE(d.observe(At(0, 41), kReq, kRead, nullptr, &full));
  auto c = Counters(d);
  EXPECT_EQ(c["room_read_requests"], 8u);
  EXPECT_EQ(c["room_read_bytes"], 8 * kReq);
  EXPECT_EQ(c["bypassed_read_requests"], 1u);
  EXPECT_EQ(c["bypassed_write_requests"], 8u);
}

// Live change (tiercache policy): a lower cutoff applies to a stream already tracked; turning
// detection off caches everything and frees the tables; on again, streams start afresh. The
// bypass counters run on throughout.
TEST(SequentialDetectorTest, ReconfigureAppliesToRunningStreams) {
  SequentialDetector d(SequentialOptions{});  // 4 MiB: requests 1..32 of a stream are cached
  for (int k = 1; k <= 10; ++k) ASSERT_FALSE(d.observe(At(0, k), kReq, kRead)) << k;
  SequentialOptions one_mib;
  one_mib.read_cutoff_bytes = one_mib.write_cutoff_bytes = 1 * kMiB;  // 8 requests
  d.reconfigure(one_mib);
  // The stream spans 10 x 128 KiB already: its next request bypasses.
  EXPECT_TRUE(d.observe(At(0, 11), kReq, kRead));
  EXPECT_EQ(Counters(d)["streams_tracked"], 1u);
  SequentialOptions off;
  off.enabled = false;
  d.reconfigure(off);
  EXPECT_FALSE(d.observe(At(0, 12), kReq, kRead));
  EXPECT_EQ(d.memory_size(), 0u);
  d.reconfigure(one_mib);
  EXPECT_EQ(d.memory_size(), 2u * 64 * 20 + 64 * 24);
  for (int k = 13; k <= 20; ++k) EXPECT_FALSE(d.observe(At(0, k), kReq, kRead)) << k;
  EXPECT_TRUE(d.observe(At(0, 21), kReq, kRead));  // a new stream from request 13: 8 cached
  auto c = Counters(d);
  EXPECT_EQ(c["bypassed_read_requests"], 2u);
  EXPECT_EQ(c["bypassed_read_bytes"], 2 * kReq);
  EXPECT_EQ(c["streams_tracked"], 1u);
}

TEST(SequentialOptionsTest, ValidateNamesTheBadField) {
  auto error = [](void (*edit)(SequentialOptions&)) {
    SequentialOptions o;
    edit(o);
    Status s = o.validate();
    return s.ok() ? std::string("ok") : s.message();
  };
  EXPECT_EQ(error([](SequentialOptions&) {}), "ok");
  EXPECT_EQ(error([](SequentialOptions& o) { o.read_cutoff_bytes = 0; }),
            "read_cutoff_bytes must be a multiple of 4096 and >= 4096");
  EXPECT_EQ(error([](SequentialOptions& o) { o.read_cutoff_bytes = 4096 + 512; }),
            "read_cutoff_bytes must be a multiple of 4096 and >= 4096");
  EXPECT_EQ(error([](SequentialOptions& o) { o.write_cutoff_bytes = 2048; }),
            "write_cutoff_bytes must be a multiple of 4096 and >= 4096");
  EXPECT_EQ(error([](SequentialOptions& o) { o.streams = 0; }), "streams must be in [1, 4096]");
  EXPECT_EQ(error([](SequentialOptions& o) { o.streams = 4097; }), "streams must be in [1, 4096]");
  EXPECT_EQ(error([](SequentialOptions& o) { o.streams = 4096; o.read_cutoff_bytes = 4096; }),
            "ok");
  EXPECT_EQ(error([](SequentialOptions& o) { o.enabled = false; o.write_cutoff_bytes = 1; }),
            "ok");
}

}  // namespace
}  // namespace tiercache
