#include "policy/testing/reference_caches.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "policy/admission/always_admit.h"
#include "policy/replacement/lru_policy.h"
#include "policy/testing/policy_simulator.h"

namespace tiercache {
namespace {

// The accesses of `trace` that hit, as a string of 0s and 1s.
std::string Hits(CacheModel& cache, const std::string& trace) {
  std::string hits;
  for (char block : trace) hits += cache.access(static_cast<uint64_t>(block)) ? '1' : '0';
  return hits;
}

TEST(ReferenceCachesTest, LruEvictsTheLeastRecent) {
  auto lru = MakeLruReference(3);
  EXPECT_EQ(Hits(*lru, "abcadbea"), "00010000");
  EXPECT_EQ(lru->ssd_writes(), 7u);
}

TEST(ReferenceCachesTest, SieveKeepsVisitedBlocksPastTheHand) {
  // d: the hand clears a's bit and evicts b; b evicts c; e evicts d; a survived.
  auto sieve = MakeSieveReference(3);
  EXPECT_EQ(Hits(*sieve, "abcadbea"), "00010001");
}

TEST(ReferenceCachesTest, ArcProtectsFrequentBlocksFromOneTimeBlocks) {
  // a reaches T2; b, c, d pass through T1 and B1 without touching it. LRU loses a.
  auto arc = MakeArcReference(2);
  EXPECT_EQ(Hits(*arc, "aabcda"), "010001");
  auto lru = MakeLruReference(2);
  EXPECT_EQ(Hits(*lru, "aabcda"), "010000");
}

TEST(ReferenceCachesTest, LirsKeepsItsLirBlocksOnALoopLargerThanTheCache) {
  // 3 blocks: a and b are LIR, one resident HIR slot churns between c and d.
  auto lirs = MakeLirsReference(3);
  EXPECT_EQ(Hits(*lirs, "abcdabcdabcd"), "000011001100");
  auto lru = MakeLruReference(3);
  EXPECT_EQ(Hits(*lru, "abcdabcdabcd"), "000000000000");
}

TEST(ReferenceCachesTest, S3FifoMovesBlocksHitWhileSmallToMain) {
  // h is hit twice in the small FIFO, so the first eviction moves it to main; 20 one-time blocks
  // then churn through small and h is still cached. LRU lost it.
  std::string trace = "hhh";
  for (char c = 'A'; c < 'A' + 20; ++c) trace += c;
  trace += 'h';
  auto s3fifo = MakeS3FifoReference(10);
  EXPECT_EQ(Hits(*s3fifo, trace), "011" + std::string(20, '0') + "1");
  auto lru = MakeLruReference(10);
  EXPECT_EQ(Hits(*lru, trace), "011" + std::string(20, '0') + "0");
}

TEST(ReferenceCachesTest, LruReferenceMatchesLruPolicyInTheSimulator) {
  auto reference = MakeLruReference(100);
  PolicySimulator sim(100, std::make_unique<LruPolicy>(100), std::make_unique<AlwaysAdmit>());
  std::mt19937_64 rng(3);
  uint64_t hits = 0;
  for (int i = 0; i < 20000; ++i) {
    const uint64_t block = rng() % 300;
    const bool hit = reference->access(block);
    ASSERT_EQ(sim.access(block), hit) << i;
    hits += hit;
  }
  EXPECT_EQ(sim.ssd_writes(), reference->ssd_writes());
  EXPECT_EQ(sim.misses(), 20000 - hits);
}

}  // namespace
}  // namespace tiercache
