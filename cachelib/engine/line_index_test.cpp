#include "cachelib/engine/line_index.h"

#include <gtest/gtest.h>

#include <random>
#include <unordered_map>

namespace tiercache {
namespace {

TEST(LineIndexTest, FindsInsertedAndForgetsErased) {
  SlotTable slots(4, 1);
  LineIndex index(4);
  EXPECT_EQ(index.find(7, slots), LineIndex::kNotFound);
  slots.assign(2, 7);
  index.insert(7, 2);
  slots.assign(0, 1ull << 40);
  index.insert(1ull << 40, 0);
  EXPECT_EQ(index.find(7, slots), 2u);
  EXPECT_EQ(index.find(1ull << 40, slots), 0u);
  EXPECT_EQ(index.find(8, slots), LineIndex::kNotFound);
  index.erase(7, 2, slots);
  slots.clear(2);
  EXPECT_EQ(index.find(7, slots), LineIndex::kNotFound);
  EXPECT_EQ(index.find(1ull << 40, slots), 0u);
  EXPECT_EQ(index.entry_bytes(), 3u);
  EXPECT_EQ(index.memory_size(), 16u * 3u + 1u);  // the 16-entry minimum, 1 byte of padding
}

// Random operations on an index of kLines lines near its maximum load, checked against
// std::unordered_map: a key drawn among `keys` is inserted when absent; when present it moves to
// a free line (relink) `relink_in_4` times in 4, else it is erased. Returns the moves made.
uint64_t ChurnAgainstAMap(uint64_t keys, int relink_in_4, uint64_t seed) {
  constexpr uint32_t kLines = 1000;
  SlotTable slots(kLines, 1);
  LineIndex index(kLines);
  std::unordered_map<uint64_t, uint32_t> truth;
  std::vector<uint32_t> free_slots;
  for (uint32_t i = 0; i < kLines; ++i) free_slots.push_back(i);
  std::mt19937_64 rng(seed);
  uint64_t moves = 0;
  for (int op = 0; op < 200000; ++op) {
    const uint64_t key = rng() % keys;
    auto it = truth.find(key);
    if (it != truth.end() && !free_slots.empty() && int(rng() % 4) < relink_in_4) {
      const uint32_t to = free_slots.back();
      free_slots.pop_back();
      slots.assign(to, key);
      index.relink(key, it->second, to);
      if (index.find(key, slots) != to) {  // stop before an erase looks for the lost entry
        ADD_FAILURE() << "op " << op << ": key " << key << " not found at slot " << to;
        return moves;
      }
      slots.clear(it->second);
      free_slots.push_back(it->second);
      it->second = to;
      ++moves;
    } else if (it != truth.end()) {
      index.erase(key, it->second, slots);
      slots.clear(it->second);
      free_slots.push_back(it->second);
      truth.erase(it);
    } else if (!free_slots.empty()) {
      const uint32_t slot = free_slots.back();
      free_slots.pop_back();
      slots.assign(slot, key);
      index.insert(key, slot);
      truth[key] = slot;
    }
    if (op % 1000 == 0) {
      for (const auto& [k, s] : truth) EXPECT_EQ(index.find(k, slots), s) << "op " << op;
      if (::testing::Test::HasFailure()) return moves;
    }
  }
  EXPECT_LT(free_slots.size(), kLines / 10);  // the table was near its full load throughout
  for (uint64_t k = 0; k < keys; ++k) {
    auto it = truth.find(k);
    EXPECT_EQ(index.find(k, slots), it == truth.end() ? LineIndex::kNotFound : it->second);
  }
  EXPECT_EQ(index.memory_size(), (kLines * 5 / 4 + 1) * 3u + 1u);
  return moves;
}

// Backward shift deletion must never lose an entry of a cluster that wraps around the table's
// end.
TEST(LineIndexTest, MatchesAMapUnderChurnAtFullLoad) {
  EXPECT_EQ(ChurnAgainstAMap(4000, 0, 42), 0u);
}

// A block that moves to another line (a write over a trusted line) keeps its entry, re-pointed:
// moves mixed into the churn leave every key findable at its newest slot.
TEST(LineIndexTest, RelinkedEntriesFollowTheirBlocksUnderChurn) {
  EXPECT_GT(ChurnAgainstAMap(1200, 3, 7), 50000u);  // keys mostly present: many moves
}

// A core line (48 bits, as the SlotTable keeps them) spread over the whole range.
uint64_t Key(uint32_t i) { return (uint64_t{i} + 1) * 0x9E3779B97F4A7C15ull >> 16; }

// The widest slot numbers of each entry size: 3 bytes up to 2^21 - 1 lines (21 slot bits, 3 tag
// bits), 4 bytes above. Keys hashing to the same home must be told apart by tag or SlotTable.
TEST(LineIndexTest, HighestSlotsOfBothEntrySizes) {
  for (uint32_t lines : {(uint32_t{1} << 21) - 1, uint32_t{1} << 21}) {
    SCOPED_TRACE(lines);
    SlotTable slots(lines, 1);
    LineIndex index(lines);
    EXPECT_EQ(index.entry_bytes(), lines < (uint32_t{1} << 21) ? 3u : 4u);
    EXPECT_EQ(index.memory_size(), (size_t{lines} * 5 / 4 + 1) * index.entry_bytes() +
                                       (4 - index.entry_bytes()));
    std::unordered_map<uint64_t, uint32_t> truth;
    for (uint32_t i = 0; i < 3000; ++i) {
      const uint32_t slot = lines - 1 - i * 7;
      const uint64_t key = Key(i);
      slots.assign(slot, key);
      index.insert(key, slot);
      truth[key] = slot;
    }
    for (uint32_t i = 0; i < 3000; i += 2) {  // erase every other one
      const uint64_t key = Key(i);
      index.erase(key, truth[key], slots);
      slots.clear(truth[key]);
      truth.erase(key);
    }
    for (uint32_t i = 0; i < 3000; ++i) {
      const uint64_t key = Key(i);
      auto it = truth.find(key);
      ASSERT_EQ(index.find(key, slots), it == truth.end() ? LineIndex::kNotFound : it->second);
    }
  }
}

}  // namespace
}  // namespace tiercache
