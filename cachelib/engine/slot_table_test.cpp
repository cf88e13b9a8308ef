#include "cachelib/engine/slot_table.h"

#include <gtest/gtest.h>

namespace tiercache {
namespace {

TEST(SlotTableTest, OneSectorLinesKeepBitsInTheWord) {
  SlotTable t(3, 1);
  EXPECT_FALSE(t.in_use(1));
  EXPECT_EQ(t.core_line(1), LineRecord::kNoCoreLine);
  t.assign(1, (1ull << 47) + 5);  // the largest core lines fit in 48 bits
  EXPECT_EQ(t.core_line(1), (1ull << 47) + 5);
  t.set_valid(1, SectorBits(1));
  t.set_dirty(1, SectorBits(1));
  t.set_durable_dirty(1, true);
  EXPECT_EQ(t.record(1), (LineRecord{(1ull << 47) + 5, SectorBits(1), SectorBits(1)}));
  EXPECT_TRUE(t.any_dirty(1) && t.durable_dirty(1) && !t.clean_pending(1));
  EXPECT_EQ(t.core_line(1), (1ull << 47) + 5);  // flags do not leak into the core line
  t.set_dirty(1, SectorBits());
  EXPECT_FALSE(t.any_dirty(1));
  EXPECT_TRUE(t.durable_dirty(1));
  t.clear(1);
  EXPECT_FALSE(t.in_use(1));
  EXPECT_EQ(t.record(1), LineRecord{});
  EXPECT_EQ(t.memory_size(), 3u * 8u);  // 8 bytes per 4 KiB line
}

TEST(SlotTableTest, MultiSectorLinesKeepBitmapsApart) {
  SlotTable t(2, 256);
  SectorBits valid, dirty;
  valid.set(0).set(63).set(64).set(200).set(255);
  dirty.set(64).set(255);
  t.assign(0, 9);
  t.assign(1, 10);
  t.set_valid(0, valid);
  t.set_dirty(0, dirty);
  EXPECT_EQ(t.valid(0), valid);
  EXPECT_EQ(t.dirty(0), dirty);
  EXPECT_TRUE(t.valid(1).none());
  EXPECT_TRUE(t.any_dirty(0));
  EXPECT_FALSE(t.any_dirty(1));
  t.assign(0, 11);  // reassigning starts empty
  EXPECT_TRUE(t.valid(0).none() && t.dirty(0).none());
  EXPECT_EQ(t.memory_size(), 2u * 8u + 2u * 2u * 32u);
}

}  // namespace
}  // namespace tiercache
