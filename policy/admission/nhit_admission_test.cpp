#include "policy/admission/nhit_admission.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace tiercache {
namespace {

std::map<std::string, uint64_t> Counters(const AdmissionPolicy& policy) {
  std::map<std::string, uint64_t> out;
  policy.visit_counters([&](std::string_view name, uint64_t v) { out[std::string(name)] = v; });
  return out;
}

AdmissionQuery Miss(uint64_t block, uint64_t used) {
  return AdmissionQuery{block, false, used, 100};
}

TEST(NhitAdmissionTest, AdmitsEverythingBelowTheTrigger) {
  NhitAdmission nhit(100, /*threshold=*/3, /*trigger=*/0.5);
  for (uint64_t block = 0; block < 49; ++block) EXPECT_TRUE(nhit.admit(Miss(block, block)));
  EXPECT_FALSE(nhit.admit(Miss(1000, 50)));  // 50 of 100 used: past the trigger
  EXPECT_EQ(Counters(nhit), (std::map<std::string, uint64_t>{{"admitted", 49}, {"refused", 1}}));
}

TEST(NhitAdmissionTest, AdmitsOnTheNthMissPastTheTrigger) {
  NhitAdmission nhit(100, 3, 0.5);
  EXPECT_TRUE(nhit.admit(Miss(7, 10)));  // counted even while below the trigger
  EXPECT_FALSE(nhit.admit(Miss(8, 60)));
  EXPECT_FALSE(nhit.admit(Miss(8, 60)));
  EXPECT_TRUE(nhit.admit(Miss(8, 60)));   // third miss
  EXPECT_FALSE(nhit.admit(Miss(7, 60)));  // second
  EXPECT_TRUE(nhit.admit(Miss(7, 60)));   // third
  nhit.on_hit(9, false);                  // hits and evictions do not count
  nhit.on_evict(9);
  EXPECT_FALSE(nhit.admit(Miss(9, 60)));
  EXPECT_EQ(Counters(nhit), (std::map<std::string, uint64_t>{{"admitted", 3}, {"refused", 4}}));
}

TEST(NhitAdmissionTest, CountsFadeAfterTheWindow) {
  NhitAdmission nhit(100, 3, 0.0, /*window=*/8);  // counts halve every 8 misses
  EXPECT_FALSE(nhit.admit(Miss(1, 99)));
  EXPECT_FALSE(nhit.admit(Miss(1, 99)));
  for (uint64_t block = 2; block < 8; ++block) EXPECT_FALSE(nhit.admit(Miss(block, 99)));
  // The 8th miss halved block 1's count from 2 to 1.
  EXPECT_FALSE(nhit.admit(Miss(1, 99)));
  EXPECT_TRUE(nhit.admit(Miss(1, 99)));
}

TEST(NhitAdmissionTest, ThresholdOneAdmitsAllAndMemoryIsTheSketch) {
  NhitAdmission nhit(1u << 16, 1, 1.0);
  EXPECT_TRUE(nhit.admit(AdmissionQuery{5, false, 1u << 16, 1u << 16}));
  EXPECT_EQ(nhit.memory_size(), 1u << 16);  // one byte per slot at window = capacity
  EXPECT_EQ(NhitAdmission(1u << 16, 3, 0.8, 1u << 12).memory_size(), 1u << 12);
}

}  // namespace
}  // namespace tiercache
