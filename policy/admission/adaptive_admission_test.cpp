#include "policy/admission/adaptive_admission.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace tiercache {
namespace {

constexpr uint32_t kCapacity = 256;  // window: 256 accesses; FrequencyTable (Exact): 128 entries
constexpr uint64_t kFill = 32;       // few enough that no FrequencyTable bucket overflows

std::map<std::string, uint64_t> Counters(const AdmissionPolicy& policy) {
  std::map<std::string, uint64_t> out;
  policy.visit_counters([&](std::string_view name, uint64_t v) { out[std::string(name)] = v; });
  return out;
}

// Every block followed, no probes, no halving, no ghost: every figure below is exact. No margin,
// and a pending miss weighs as much as one that ended without a return, so a level's ratio is
// (returns + 2) / (misses + 4) for the tests that follow; the last tests use the defaults.
AdaptiveAdmission::Params Exact() {
  AdaptiveAdmission::Params p;
  p.sample_shift = 0;
  p.probe_interval = 0;
  p.miss_halving = 1000;
  p.eviction_halving = 1000;
  p.margin = 0;
  p.pending_weight = 1;
  p.recurring = false;  // RecurringMisses' second look is tested on its own, below
  p.ghost = 0;          // and so is the ghost's
  p.surge.ratio = 0;    // and surges of new blocks; the surge tests' figures are worked out
  p.surge.fast = 0.125;  // for these time constants (32 and 1024 accesses), without the
  p.surge.slow = 4;      // end_ratio's hysteresis
  p.surge.end_ratio = 2;
  p.young_bar = 0;      // and the bar's ceiling while evictions are young
  p.frequency_keys = 0.5;
  return p;
}

// A read miss of `block` with `used` slots taken; a warm answer must also admit.
Admission Decide(AdaptiveAdmission& policy, uint64_t block, uint64_t used = kCapacity) {
  const Admission a = policy.admit(AdmissionQuery{block, false, used, kCapacity});
  EXPECT_TRUE(a.admitted || !a.warm);
  return a;
}

bool Admit(AdaptiveAdmission& policy, uint64_t block, uint64_t used = kCapacity) {
  return Decide(policy, block, used).admitted;
}

// Blocks 0..31 are admitted while the shard has free slots; queries after that see it full.
void Fill(AdaptiveAdmission& policy) {
  for (uint64_t block = 0; block < kFill; ++block) ASSERT_TRUE(Admit(policy, block, block));
}

// Fill, then a hit on every filled block: level 0 has come back (0 + 32 + 2) / (32 + 4).
void FillAndHit(AdaptiveAdmission& policy) {
  Fill(policy);
  for (uint64_t block = 0; block < kFill; ++block) policy.on_hit(block, false);
}

TEST(AdaptiveAdmissionTest, LevelsFollowMissCounts) {
  const int expected[] = {0, 0, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4};
  for (uint32_t misses = 0; misses < 16; ++misses) {
    EXPECT_EQ(AdaptiveAdmission::Level(misses), expected[misses]) << misses;
  }
  EXPECT_EQ(AdaptiveAdmission::AutoSampleShift(256), 0u);
  EXPECT_EQ(AdaptiveAdmission::AutoSampleShift(1u << 20), 12u);
}

TEST(AdaptiveAdmissionTest, RefusesOneTimeBlocksOnceFull) {
  AdaptiveAdmission policy(kCapacity, Exact());
  Fill(policy);
  // 32 level-0 misses, none back: (0 + 2) / (32 + 4) < bar = prior 0.25.
  EXPECT_DOUBLE_EQ(policy.return_ratio(0), 2.0 / 36);
  EXPECT_DOUBLE_EQ(policy.bar(), 0.25);
  for (uint64_t block = 1000; block < 1010; ++block) EXPECT_FALSE(Admit(policy, block));
  EXPECT_EQ(Counters(policy), (std::map<std::string, uint64_t>{{"admitted", 32},
                                                               {"refused", 10},
                                                               {"probes", 0},
                                                               {"ghost_hits", 0},
                                                               {"wasted_admissions", 0},
                                                               {"threshold", 2},
                                                               {"recurring_admitted", 0},
                                                               {"surges", 0},
                                                               {"surge_admitted", 0},
                                                               {"surge_held", 0},
                                                               {"recent_admitted", 0},
                                                               {"warm_admitted", 0},
                                                               {"young_admitted", 0},
                                                               {"recalled", 0}}));
}

TEST(AdaptiveAdmissionTest, RefusedBlockComingBackIsAGhostHitAndGetsIn) {
  AdaptiveAdmission policy(kCapacity, Exact());
  Fill(policy);
  for (uint64_t block = 1000; block < 1010; ++block) EXPECT_FALSE(Admit(policy, block));
  EXPECT_TRUE(Admit(policy, 1000));  // 10 accesses later; 2 misses = level 1, no evidence yet
  policy.on_evict(0);               // the engine makes room: block 0 was never hit
  EXPECT_DOUBLE_EQ(policy.return_ratio(0), 3.0 / 46);  // 1000 came back
  EXPECT_DOUBLE_EQ(policy.return_ratio(1), 2.0 / 5);    // its second miss, not back yet
  const auto counters = Counters(policy);
  EXPECT_EQ(counters.at("admitted"), 33u);
  EXPECT_EQ(counters.at("ghost_hits"), 1u);
  EXPECT_EQ(counters.at("wasted_admissions"), 1u);
}

TEST(AdaptiveAdmissionTest, AdmitsNewBlocksWhenBlocksAreReadTwice) {
  AdaptiveAdmission policy(kCapacity, Exact());
  FillAndHit(policy);
  EXPECT_DOUBLE_EQ(policy.return_ratio(0), 34.0 / 36);
  EXPECT_TRUE(Admit(policy, 2000));
  policy.on_evict(0);
  EXPECT_EQ(Counters(policy).at("wasted_admissions"), 0u);  // block 0 had its hit
  EXPECT_EQ(Counters(policy).at("threshold"), 1u);
}

TEST(AdaptiveAdmissionTest, EvictedBlocksComingBackRaiseTheBar) {
  AdaptiveAdmission policy(kCapacity, Exact());
  FillAndHit(policy);
  for (uint64_t block = 0; block < 8; ++block) policy.on_evict(block);
  // The k-th to come back finds (k + 1) / (k + 4) of evictions back, against (0 + 2) / (k + 3)
  // for its own level 1 (the earlier ones, not back yet): only the first gets in.
  EXPECT_TRUE(Admit(policy, 0));
  for (uint64_t block = 1; block < 8; ++block) EXPECT_FALSE(Admit(policy, block)) << block;
  EXPECT_DOUBLE_EQ(policy.bar(), 0.75);
  EXPECT_TRUE(Admit(policy, 5000));  // level 0 still returns 34 / 36 of the time
  EXPECT_EQ(Counters(policy).at("threshold"), 1u);
}

TEST(AdaptiveAdmissionTest, UnreturnedEvictionsCountOnceTheirWindowPassed) {
  AdaptiveAdmission policy(kCapacity, Exact());
  FillAndHit(policy);
  policy.on_evict(0);
  EXPECT_DOUBLE_EQ(policy.bar(), 0.25);  // young evictions do not count yet
  // The sweep covers the tracker once per window, so an expired event is seen within a window.
  for (uint32_t i = 0; i < 2 * kCapacity; ++i) policy.on_hit(1, false);
  EXPECT_DOUBLE_EQ(policy.bar(), 0.2);  // (0 + 1) / (1 + 4), above the min_return floor (0.1)
}

TEST(AdaptiveAdmissionTest, ProbesAdmitOneRefusalInN) {
  AdaptiveAdmission::Params p = Exact();
  p.probe_interval = 4;
  AdaptiveAdmission policy(kCapacity, p);
  Fill(policy);
  int admitted = 0;
  for (uint64_t block = 1000; block < 1012; ++block) admitted += Admit(policy, block);
  EXPECT_EQ(admitted, 3);
  EXPECT_EQ(Counters(policy).at("probes"), 3u);
}

TEST(AdaptiveAdmissionTest, PendingMissesWeighLessThanEndedOnes) {
  AdaptiveAdmission::Params p = Exact();
  p.pending_weight = 0.25;
  AdaptiveAdmission policy(kCapacity, p);
  Fill(policy);  // misses that fill free slots count at once as not back: (0 + 2) / (32 + 4)
  EXPECT_DOUBLE_EQ(policy.return_ratio(0), 2.0 / 36);
  EXPECT_FALSE(Admit(policy, 1000));  // refused, then pending at 0.25
  EXPECT_DOUBLE_EQ(policy.return_ratio(0), 2.0 / 36.25);
  // 600 accesses later 1000's miss ended without a return (the sweep covers the tracker once per
  // window of 256 accesses); the fill's misses, already counted, end without changing anything.
  for (uint32_t i = 0; i < 600; ++i) policy.on_hit(2000, false);
  EXPECT_DOUBLE_EQ(policy.return_ratio(0), 2.0 / 37);
  EXPECT_TRUE(Admit(policy, 1000));  // its second miss: level 1, no evidence yet (prior 0.5)
  EXPECT_DOUBLE_EQ(policy.return_ratio(1), 2.0 / 4.25);
}

// A moved hot set: 24 new blocks missed, then 12 of them back. At weight 1 the 12 still pending
// count as one-time reads and hold level 0 under the bar; at 0.25 the new hot blocks get in at
// their first miss.
TEST(AdaptiveAdmissionTest, AMovedHotSetGetsInBeforeItsMissesEnd) {
  for (const double weight : {1.0, 0.25}) {
    AdaptiveAdmission::Params p = Exact();
    p.pending_weight = weight;
    AdaptiveAdmission policy(kCapacity, p);
    Fill(policy);
    for (uint32_t i = 0; i < 600; ++i) policy.on_hit(2000, false);  // the fill's misses end
    // Level 0: the fill's 32, none back: (0 + 2) / (32 + 4), under the bar 0.25.
    for (uint64_t block = 700; block < 724; ++block) EXPECT_FALSE(Admit(policy, block));
    // The j-th to come back is a level-1 miss with j pending before it: 2 / (weight * j + 4)
    // clears 0.25 for j <= 4 at weight 1, for all 12 at 0.25.
    int back = 0;
    for (uint64_t block = 700; block < 712; ++block) back += Admit(policy, block);
    EXPECT_EQ(back, weight == 1.0 ? 5 : 12) << weight;
    // Level 0: 44 ended, 12 back, 12 pending: 14 / 60 at weight 1, 14 / 51 at 0.25.
    EXPECT_DOUBLE_EQ(policy.return_ratio(0), 14.0 / (44 + weight * 12 + 4));
    EXPECT_EQ(Admit(policy, 800), weight != 1.0) << weight;
  }
}

// Evictions come back (1 + 1) / (1 + 4) = 0.4 of the time, a returning block's level 1 is at its
// prior 0.5: admitted without a margin, kept out by a margin of 0.15 (bar 0.55).
TEST(AdaptiveAdmissionTest, MarginKeepsTheCachedBlockOnATie) {
  for (const double margin : {0.0, 0.15}) {
    AdaptiveAdmission::Params p = Exact();
    p.margin = margin;
    AdaptiveAdmission policy(kCapacity, p);
    FillAndHit(policy);
    EXPECT_DOUBLE_EQ(policy.bar(), 0.25 + margin);  // no evictions measured: prior 0.25
    policy.on_evict(0);
    EXPECT_EQ(Admit(policy, 0), margin == 0.0) << margin;
    EXPECT_DOUBLE_EQ(policy.bar(), 0.4 + margin);
  }
}

// Evictions that come back count at once, those that do not a window later. Just after 8
// evictions of which 2 came back, the share reads (2 + 1) / (2 + 4) = 0.5 with 6 still pending,
// more than twice the 2 that ended: the bar is young_bar's 0.35 instead of 0.5, and a level whose
// ratio is 0.4 gets in. Once the other 6 end without a return the share is (2 + 1) / (8 + 4) =
// 0.25, the bar settles there, and no ceiling is needed.
TEST(AdaptiveAdmissionTest, YoungEvictionsCapTheBar) {
  for (const double young_bar : {0.0, 0.35}) {
    AdaptiveAdmission::Params p = Exact();
    p.young_bar = young_bar;
    AdaptiveAdmission policy(kCapacity, p);
    FillAndHit(policy);
    for (uint64_t block = 0; block < 8; ++block) policy.on_evict(block);
    EXPECT_DOUBLE_EQ(policy.bar(), 0.25);  // no eviction ended yet: the prior, under the ceiling
    EXPECT_TRUE(Admit(policy, 0));  // level 1 at its prior 0.5; evictions (1 + 1) / (1 + 4)
    EXPECT_DOUBLE_EQ(policy.bar(), young_bar == 0 ? 0.4 : 0.35);
    // Block 1 comes back: evictions (2 + 1) / (2 + 4); level 1 is 2 / (1 + 4) with block 0's
    // miss pending.
    EXPECT_EQ(Admit(policy, 1), young_bar != 0) << young_bar;
    EXPECT_DOUBLE_EQ(policy.return_ratio(1), 2.0 / 6);  // blocks 0 and 1 pending
    EXPECT_DOUBLE_EQ(policy.bar(), young_bar == 0 ? 0.5 : 0.35);
    EXPECT_EQ(Counters(policy).at("young_admitted"), young_bar == 0 ? 0u : 1u);
    // Every pending event ends without a return within two windows (hits on a block whose fill
    // miss had already ended).
    for (uint32_t i = 0; i < 2 * kCapacity; ++i) policy.on_hit(20, false);
    EXPECT_DOUBLE_EQ(policy.bar(), 0.25);  // (2 + 1) / (8 + 4): settled, with or without
    EXPECT_DOUBLE_EQ(policy.return_ratio(1), 2.0 / 6);  // both misses ended, neither back
    EXPECT_TRUE(Admit(policy, 2));  // evicted, back too late: level 1, 0.33 clears 0.25
    EXPECT_EQ(Counters(policy).at("young_admitted"), young_bar == 0 ? 0u : 1u);
    // A settled E may be high and is then true: 3 more evictions (pending, but not more than
    // twice the 8 that ended) all come back, (5 + 1) / (11 + 4) = 0.4, and no ceiling applies.
    for (uint64_t block = 20; block < 23; ++block) policy.on_evict(block);
    for (uint64_t block = 20; block < 23; ++block) policy.on_hit(block, false);
    EXPECT_DOUBLE_EQ(policy.bar(), 0.4);
  }
}

TEST(AdaptiveAdmissionTest, MemoryIsTwoBytesPerSlotPlusTheSample) {
  AdaptiveAdmission::Params p;
  p.recurring = false;
  // FrequencyTable: 16384 entries of 2 bytes; ghost: 1.5 * 65536 entries of 1 byte (two Bloom
  // filters of 49152 entries, 8 bits each); tracker: 1 in 256 blocks, 1024 entries of 8 bytes.
  EXPECT_EQ(AdaptiveAdmission(1u << 16, p).memory_size(), 32768u + 98304u + 8192u);
  p.ghost = 0;
  EXPECT_EQ(AdaptiveAdmission(1u << 16, p).memory_size(), 32768u + 8192u);
  // RecurringMisses: RegionHistory, 0.4 entries per slot of 4 bytes (3277 buckets of 8); its
  // tracker, 1 in 256 blocks over 12 capacities (2048 buckets of 4 entries of 8 bytes).
  EXPECT_EQ(AdaptiveAdmission(1u << 16).memory_size(),
            32768u + 98304u + 8192u + 3277u * 32 + 65536u);
}

// A hot set larger than the cache misses again after more misses than the FrequencyTable keeps
// keys; the ghost remembers the blocks the cache refused or evicted, and a first miss it
// remembers counts as a second (level 1).
TEST(AdaptiveAdmissionTest, AFirstMissTheGhostRemembersCountsAsASecond) {
  for (const bool ghost : {false, true}) {
    AdaptiveAdmission::Params p = Exact();
    p.frequency_keys = 8.0 / kCapacity;  // one bucket: forgets a key after 8 newer ones
    p.ghost = ghost ? 1.5 : 0;           // 384 entries: remembers the last 192 to 384
    AdaptiveAdmission policy(kCapacity, p);
    Fill(policy);  // level 0: (0 + 2) / (32 + 4) < bar 0.25; level 1: no sample, prior 0.5
    EXPECT_FALSE(Admit(policy, 5000));
    EXPECT_FALSE(Admit(policy, 5001));
    for (uint64_t block = 6000; block < 6020; ++block) EXPECT_FALSE(Admit(policy, block));
    EXPECT_EQ(Admit(policy, 5000), ghost) << ghost;  // refused 21 misses ago
    policy.on_evict(7);                                // filled, then evicted
    for (uint64_t block = 7000; block < 7020; ++block) EXPECT_FALSE(Admit(policy, block));
    EXPECT_EQ(Admit(policy, 7), ghost) << ghost;
    EXPECT_EQ(Counters(policy).at("recalled"), ghost ? 2u : 0u);
    // 400 misses later the ghost has forgotten 5001: a first miss again. Among those 400 new
    // blocks, a few read as remembered: the Bloom filters' false positives, <= 4.3% of them.
    for (uint64_t block = 8000; block < 8400; ++block) Admit(policy, block);
    const uint64_t false_recalls = Counters(policy).at("recalled") - (ghost ? 2 : 0);
    EXPECT_LE(false_recalls, ghost ? 17u : 0u);
    Admit(policy, 5001);
    EXPECT_EQ(Counters(policy).at("recalled"), (ghost ? 2 : 0) + false_recalls);
  }
}

// A block read again after several cache turnovers (the next boot) is a first miss again to the
// FrequencyTable; RecurringMisses remembers it and admits it where the levels refuse it.
TEST(AdaptiveAdmissionTest, ABlockBackAfterManyTurnoversGetsInThroughRecurringMisses) {
  for (const bool recurring : {false, true}) {
    AdaptiveAdmission::Params p = Exact();
    p.recurring = recurring;
    AdaptiveAdmission policy(kCapacity, p);
    Fill(policy);
    // One-time blocks push the level-0 ratio down and churn the FrequencyTable (128 entries).
    for (uint64_t block = 10000; block < 10000 + 4 * kCapacity; ++block) {
      EXPECT_FALSE(Admit(policy, block));
    }
    EXPECT_EQ(Admit(policy, 10000), recurring) << recurring;  // 1024 accesses later: level 0
    EXPECT_FALSE(Admit(policy, 90000));  // never seen: refused either way
    EXPECT_EQ(Counters(policy).at("recurring_admitted"), recurring ? 1u : 0u);
  }
}

// The old set hits (blocks cached before the policy's statistics, which no miss of theirs
// reaches); one new block in 10 accesses misses and is refused, as level 0 never comes back.
// Returns the next new block.
uint64_t SteadyOldSet(AdaptiveAdmission& policy) {
  uint64_t next = 100000;
  for (int i = 0; i < 4096; ++i) {
    if (i % 10 == 0) {
      EXPECT_FALSE(Admit(policy, next));
      next += 7;
    } else {
      policy.on_hit(50000 + i % kFill, false);
    }
  }
  return next;
}

// Fill, then the steady old set.
uint64_t FillThenSteady(AdaptiveAdmission& policy) {
  Fill(policy);
  return SteadyOldSet(policy);
}

// Exact() with surges of new blocks judged (a fast rate twice the slow one).
AdaptiveAdmission::Params Surging() {
  AdaptiveAdmission::Params p = Exact();
  p.surge.ratio = 2;
  return p;
}

// The working set moves: new blocks miss far more often than lately (a surge, NewBlockSurge). Its
// first misses get in while evictions rarely come back, where level 0's ratio (~0.004) refuses.
// What gets in during the surge is warm (a hit's standing in replacement); nothing else is.
TEST(AdaptiveAdmissionTest, FirstMissesOfAMovedSetGetInDuringASurge) {
  for (const bool surge : {false, true}) {
    AdaptiveAdmission::Params p = Exact();
    p.surge.ratio = surge ? 2 : 0;
    AdaptiveAdmission policy(kCapacity, p);
    uint64_t next = FillThenSteady(policy);
    // Scattered new blocks, one per access: the fast rate passes 0.2 and twice the slow one
    // (~0.1) at the 5th (1 - 0.9 * (31/32)^5 = 0.23).
    for (int i = 0; i < 32; ++i, next += 7) {
      const Admission a = Decide(policy, next);
      EXPECT_EQ(a.admitted, surge && i >= 4) << i;
      EXPECT_EQ(a.warm, surge && i >= 4) << i;
    }
    auto counters = Counters(policy);
    EXPECT_EQ(counters.at("surges"), surge ? 1u : 0u);
    EXPECT_EQ(counters.at("surge_admitted"), surge ? 28u : 0u);
    EXPECT_DOUBLE_EQ(policy.return_ratio(0), 2.0 / (32 + 410 + 32 + 4));  // fill, steady, moved
    // The moved set comes back (hits for the 28 admitted, misses at level 1 for the others),
    // then hits on; the surge is over. For one capacity of accesses after it, level 0's recent
    // returns alone (its returns and ended misses, halved every 64 accesses) admit a new block.
    // The 28 hits decay the fast rate by only (31/32)^28 = 0.41, and the slow one barely: the
    // first of the level-1 misses is still admitted in the surge, warm.
    for (int i = 4; i < 32; ++i) policy.on_hit(next - 7 * (32 - i), false);
    uint64_t warm = 0;
    for (int i = 0; i < 4; ++i) {
      const Admission a = Decide(policy, next - 7 * (32 - i));
      EXPECT_TRUE(a.admitted) << i;
      if (i == 0) {
        EXPECT_EQ(a.warm, surge);
      }
      warm += a.warm;
    }
    for (int i = 0; i < 64; ++i) policy.on_hit(50000 + i % kFill, false);
    const Admission late = Decide(policy, 900000);
    EXPECT_EQ(late.admitted, surge);
    EXPECT_FALSE(late.warm);
    counters = Counters(policy);
    EXPECT_EQ(counters.at("surge_admitted"), surge ? 28u : 0u);
    EXPECT_EQ(counters.at("recent_admitted"), surge ? 1u : 0u);
    EXPECT_EQ(counters.at("warm_admitted"), surge ? 28u + warm : 0u);
    // A capacity later the recent returns no longer speak: refused.
    for (uint32_t i = 0; i < kCapacity; ++i) policy.on_hit(50000 + i % kFill, false);
    EXPECT_FALSE(Admit(policy, 900007));
  }
}

// A moved set's blocks refused before the surge was seen miss again in it as second misses (the
// FrequencyTable, or the ghost, remembers them), and level 1 is judged on the old set's noise:
// surge_max_level 1 (the default) lets them in with the surge's first misses, 0 does not.
TEST(AdaptiveAdmissionTest, SecondMissesGetInDuringASurgeUpToSurgeMaxLevel) {
  for (const int max_level : {0, 1}) {
    AdaptiveAdmission::Params p = Surging();
    p.surge_max_level = max_level;
    AdaptiveAdmission policy(kCapacity, p);
    uint64_t next = FillThenSteady(policy);
    // Eight of the last steady blocks miss again (level 1, prior 0.5) and never come back: the
    // k-th is admitted while 2 / (k - 1 + 4) >= 0.25 (the evictions' prior), so 5 of them.
    for (int k = 1; k <= 8; ++k) EXPECT_EQ(Admit(policy, next - 7 * k), k <= 5) << k;
    for (int i = 0; i < 32; ++i, next += 7) EXPECT_EQ(Admit(policy, next), i >= 4) << i;
    const uint64_t surge_admitted = Counters(policy).at("surge_admitted");
    EXPECT_EQ(surge_admitted, 28u);
    // In the surge, four earlier steady blocks miss a second time.
    for (int k = 9; k <= 12; ++k) {
      const Admission a = Decide(policy, next - 7 * 32 - 7 * k);
      EXPECT_EQ(a.admitted, max_level == 1) << k;
      EXPECT_EQ(a.warm, max_level == 1) << k;
    }
    EXPECT_EQ(Counters(policy).at("surge_admitted") - surge_admitted, max_level == 1 ? 4u : 0u);
    EXPECT_EQ(Counters(policy).at("surges"), 1u);
  }
}

// Params::surge_warm off: the surge admits the same blocks, none of them warm.
TEST(AdaptiveAdmissionTest, WithoutSurgeWarmTheSurgeAdmitsCold) {
  AdaptiveAdmission::Params p = Surging();
  p.surge_warm = false;
  AdaptiveAdmission policy(kCapacity, p);
  uint64_t next = FillThenSteady(policy);
  for (int i = 0; i < 32; ++i, next += 7) {
    const Admission a = Decide(policy, next);
    EXPECT_EQ(a.admitted, i >= 4) << i;
    EXPECT_FALSE(a.warm) << i;
  }
  EXPECT_EQ(Counters(policy).at("surge_admitted"), 28u);
  EXPECT_EQ(Counters(policy).at("warm_admitted"), 0u);
}

// No surge admission while evictions come back (the bar is theirs), nor for a run of adjacent
// blocks: a stream, which sequential bypass judges.
TEST(AdaptiveAdmissionTest, NoSurgeAdmissionForReturningEvictionsOrARun) {
  for (const bool run : {false, true}) {
    AdaptiveAdmission::Params p = Surging();
    p.surge_eviction_return = run ? 0.3 : 0.2;  // 0.2: under the evictions' prior 0.25
    AdaptiveAdmission policy(kCapacity, p);
    uint64_t next = FillThenSteady(policy);
    for (int i = 0; i < 32; ++i, next += run ? 1 : 7) EXPECT_FALSE(Admit(policy, next)) << i;
    EXPECT_EQ(Counters(policy).at("surges"), run ? 0u : 1u);
    EXPECT_EQ(Counters(policy).at("surge_admitted"), 0u);
  }
}

// Evictions of the old set whose first returns are all E has counted yet: (2 + 1) / (2 + 4) = 0.5,
// over surge_eviction_return (0.3), with 6 still pending. That young E does not stop the surge.
TEST(AdaptiveAdmissionTest, AYoungEvictionRatioDoesNotStopASurge) {
  for (const double young_bar : {0.0, 0.35}) {
    AdaptiveAdmission::Params p = Surging();
    p.young_bar = young_bar;
    AdaptiveAdmission policy(kCapacity, p);
    uint64_t next = FillThenSteady(policy);
    for (uint64_t block = 50000; block < 50008; ++block) policy.on_evict(block);
    policy.on_hit(50000, false);  // come back (the engine would report misses; E is the same)
    policy.on_hit(50001, false);
    for (int i = 0; i < 32; ++i, next += 7) {
      EXPECT_EQ(Admit(policy, next), young_bar != 0 && i >= 4) << young_bar << " " << i;
    }
    EXPECT_EQ(Counters(policy).at("surges"), 1u);
    EXPECT_EQ(Counters(policy).at("surge_admitted"), young_bar != 0 ? 28u : 0u);
    EXPECT_EQ(Counters(policy).at("young_admitted"), 0u);  // level 0 (~0.004) is far below 0.35
  }
}

// The first misses a surge admitted are followed: a loop's forgotten blocks come in bursts that
// look like surges, but come back only a loop later. When the last surge's admissions did not
// come back within a window, the next surge's first misses stay out (surge_held); when they did,
// they get in again.
TEST(AdaptiveAdmissionTest, ASurgeWhoseAdmissionsDidNotComeBackAdmitsNoMore) {
  for (const bool came_back : {false, true}) {
    AdaptiveAdmission::Params p = Surging();
    AdaptiveAdmission policy(kCapacity, p);
    uint64_t next = FillThenSteady(policy);
    std::vector<uint64_t> admitted;
    for (int i = 0; i < 32; ++i, next += 7) {
      if (Admit(policy, next)) admitted.push_back(next);
    }
    ASSERT_EQ(admitted.size(), 28u);  // as in FirstMissesOfAMovedSetGetInDuringASurge
    if (came_back) {
      for (uint64_t block : admitted) policy.on_hit(block, false);
    }
    // Calm again: hits on the old set, one new block in 10, for 16 windows (one halving of the
    // surge admissions' returns: 0 of 28 -> 0 of 14, or 28 of 28 -> 14 of 14).
    for (int i = 0; i < 4096; ++i, next += 7) {
      if (i % 10 == 0) {
        Admit(policy, next);
      } else {
        policy.on_hit(50000 + i % kFill, false);
      }
    }
    const uint64_t admitted_before = Counters(policy).at("surge_admitted");
    for (int i = 0; i < 32; ++i, next += 7) Admit(policy, next);
    auto counters = Counters(policy);
    EXPECT_EQ(counters.at("surges"), 2u);
    // Not back: (0 + 2) / (14 + 4) = 0.11 under the bar (0.25); back: (14 + 2) / (14 + 4).
    EXPECT_EQ(counters.at("surge_admitted") - admitted_before, came_back ? 28u : 0u) << came_back;
    EXPECT_EQ(counters.at("surge_held"), came_back ? 0u : 28u) << came_back;
  }
}

// Shards judge a surge on the cache's new blocks (a SurgeBoard): shard 0's first miss of a new
// block is admitted when shard 1's new blocks surge, though shard 0 sees no more than before.
TEST(AdaptiveAdmissionTest, AShardAdmitsFirstMissesWhileTheCacheSurges) {
  for (const bool board_on : {false, true}) {
    AdaptiveAdmission::Params p = Surging();
    SurgeBoard board(2);
    AdaptiveAdmission quiet(kCapacity, p, board_on ? SurgeSlot{&board, 0} : SurgeSlot{});
    AdaptiveAdmission moved(kCapacity, p, board_on ? SurgeSlot{&board, 1} : SurgeSlot{});
    Fill(quiet);
    Fill(moved);
    uint64_t next_quiet = SteadyOldSet(quiet);
    uint64_t next_moved = SteadyOldSet(moved) + 1000000;
    // 32 scattered new blocks at shard 1: its fast rate ~0.67, the mean (0.67 + ~0.1) / 2.
    for (int i = 0; i < 32; ++i, next_moved += 7) Admit(moved, next_moved);
    EXPECT_EQ(Admit(quiet, next_quiet), board_on) << board_on;
    EXPECT_EQ(Counters(quiet).at("surge_admitted"), board_on ? 1u : 0u);
    // One surge of the cache counts once, at the shard that saw it begin.
    EXPECT_EQ(Counters(quiet).at("surges") + Counters(moved).at("surges"), 1u);
    EXPECT_EQ(Counters(moved).at("surges"), 1u);
  }
}

}  // namespace
}  // namespace tiercache
