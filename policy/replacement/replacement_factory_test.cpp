#include "policy/replacement/replacement_factory.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace tiercache {
namespace {

TEST(ReplacementFactoryTest, BuildsEveryNamedPolicy) {
  EXPECT_EQ(ReplacementPolicyNames(),
            (std::vector<std::string_view>{"lru", "clock", "s3fifo", "sieve", "epoch-lru"}));
  for (std::string_view name : ReplacementPolicyNames()) {
    ReplacementOptions options;
    options.name = std::string(name);
    auto policy = MakeReplacementPolicy(options, 1000);
    ASSERT_TRUE(policy.ok()) << name;
    EXPECT_EQ(std::string_view((*policy)->name()), name);
  }
  EXPECT_EQ(ReplacementOptions().name, "epoch-lru");
}

TEST(ReplacementFactoryTest, MemoryPerSlot) {
  constexpr uint32_t kSlots = 100000;
  struct Case {
    const char* name;
    double share;
    uint64_t bytes;
  } cases[] = {
      {"lru", 0.1, 8 * kSlots},
      {"clock", 0.1, 2 * 1563 * 8},  // two bitmaps of 1563 words
      {"sieve", 0.1, 8 * kSlots + 1563 * 8},
      {"epoch-lru", 0.1, kSlots / 2},  // a 4-bit stamp per slot
      // State bytes + ring of (small + small/8 + 1) slots + ghost of 8 bits per main slot.
      {"s3fifo", 0.1, kSlots + 11251 * 4 + 90000},   // 2.35 bytes per slot
      {"s3fifo", 0.25, kSlots + 28126 * 4 + 75008},  // 2.875; ghost: 4687.5 words -> 4688
  };
  for (const Case& c : cases) {
    ReplacementOptions options;
    options.name = c.name;
    options.small_queue_share = c.share;
    auto policy = MakeReplacementPolicy(options, kSlots);
    ASSERT_TRUE(policy.ok());
    EXPECT_EQ((*policy)->memory_size(), c.bytes) << c.name << " " << c.share;
  }
}

TEST(ReplacementFactoryTest, RejectsBadOptions) {
  ReplacementOptions options;
  options.name = "arc";
  auto policy = MakeReplacementPolicy(options, 100);
  ASSERT_FALSE(policy.ok());
  EXPECT_EQ(policy.status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(policy.status().message(),
            "unknown replacement policy 'arc' (lru, clock, s3fifo, sieve, epoch-lru)");

  for (double share : {0.0, -0.1, 0.51, 1.0, std::nan("")}) {
    options = ReplacementOptions();
    options.small_queue_share = share;
    Status status = options.validate();
    EXPECT_EQ(status.code(), Status::Code::kInvalidArgument) << share;
    EXPECT_EQ(status.message().rfind("small_queue_share must be in (0, 0.5], got ", 0), 0u)
        << status.message();
  }
  options = ReplacementOptions();
  options.small_queue_share = 0.5;
  EXPECT_TRUE(options.validate().ok());

  auto empty = MakeReplacementPolicy(ReplacementOptions(), 0);
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message(), "capacity_slots must be > 0");
}

}  // namespace
}  // namespace tiercache
