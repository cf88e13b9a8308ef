// `create --force`'s dirty-data check and `attach`'s verified re-bind, on MemoryDevices through
// the library functions (CheckNoDirtyData, AttachCore).
#include "tools/attach_command.h"
#include "tools/line_records_for_test.h"

#include <gtest/gtest.h>

#include <vector>

#include "cachelib/device/memory_device.h"
#include "cachelib/metadata/format.h"
#include "tools/check_command.h"
#include "tools/create_command.h"
#include "tools/tool_devices.h"

namespace tiercache {
namespace {

using StorePtr = std::unique_ptr<MetadataStore>;

constexpr uint64_t kLine = 65536;        // 16 sectors
constexpr uint64_t kSsdSize = 16 << 20;  // 255 lines after the metadata
constexpr uint64_t kCoreSize = 64 << 20;

// A distinct byte pattern per (cache line, core line): equal on both devices unless changed.
std::vector<std::byte> LineData(uint64_t core_line) {
  std::vector<std::byte> data(kLine);
  for (size_t i = 0; i < data.size(); ++i) data[i] = std::byte((core_line * 131 + i / 7) & 0xff);
  return data;
}

class AttachTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto runner = AsyncRunner::Start();
    ASSERT_TRUE(runner.ok());
    runner_ = std::move(runner).value();
    old_core_ = {"/dev/old-core", kCoreSize, 0x1234};
    new_core_ = {"/dev/new-core", kCoreSize, 0x9999};
    FormatOptions options;
    options.line_size = kLine;
    Result<LoadedSuperblock> sb = FormatCache(*runner_, ssd_, old_core_, options);
    ASSERT_TRUE(sb.ok()) << sb.status().ToString();
    formatted_ = *sb;
  }
  // Stages `records` and closes the store cleanly; each line's data goes to the SSD and to the
  // core, so they agree.
  void write_lines(const std::vector<std::pair<uint64_t, LineRecord>>& records) {
    Result<StorePtr> store = runner_->run_result<StorePtr>(
        [&](auto done) { MetadataStore::Open(ssd_, old_core_, std::move(done)); });
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    for (const auto& [line, record] : records) {
      (*store)->set_record(line, record);
      std::vector<std::byte> data = LineData(record.core_line);
      ssd_.write_now((*store)->data_offset(line), data);
      core_.write_now(record.core_line * kLine, data);
    }
    Status closed = runner_->run([&](auto done) { (*store)->close_clean(std::move(done)); });
    ASSERT_TRUE(closed.ok()) << closed.ToString();
  }
  std::vector<std::byte> superblocks() {
    std::vector<std::byte> out(format::kSuperblockAreaSize);
    ssd_.read_now(0, out);
    return out;
  }
  Result<AttachReport> attach(bool force = false) {
    return AttachCore(*runner_, ssd_, core_, new_core_, force);
  }

  std::unique_ptr<AsyncRunner> runner_;
  MemoryDevice ssd_{"ssd", kSsdSize, 4096};
  MemoryDevice core_{"core", kCoreSize, 4096};
  CoreIdentity old_core_, new_core_;
  LoadedSuperblock formatted_;
};

TEST_F(AttachTest, CreateForceAcceptsAFreshCacheAndOtherData) {
  EXPECT_TRUE(CheckNoDirtyData(*runner_, ssd_).ok());
  MemoryDevice blank("blank", kSsdSize, 4096);
  EXPECT_TRUE(CheckNoDirtyData(*runner_, blank).ok());
  std::vector<std::byte> junk(format::kSuperblockAreaSize, std::byte{0x42});
  blank.write_now(0, junk);  // another program's data: no tiercache to protect
  EXPECT_TRUE(CheckNoDirtyData(*runner_, blank).ok());
}

TEST_F(AttachTest, CreateForceAcceptsCleanLines) {
  write_lines({{0, Record(5, 16, 0)}, {9, Record(7, 4, 0)}});
  EXPECT_TRUE(CheckNoDirtyData(*runner_, ssd_).ok());
}

TEST_F(AttachTest, CreateForceRefusesDirtyLinesAndCountsThem) {
  write_lines({{0, Record(5, 16, 0)}, {7, Record(6, 16, 3)}, {62, Record(1023, 4, 4)}});
  Status s = CheckNoDirtyData(*runner_, ssd_);
  EXPECT_EQ(s.code(), Status::Code::kBusy);
  EXPECT_EQ(s.message(),
            "ssd holds 2 dirty lines (28672 bytes, 28 KiB) not yet written to its core "
            "/dev/old-core; overwriting it would lose them. Write them back first (start "
            "`tiercached --cache ssd`, run `tiercache flush`, then `tiercache stop`), or add "
            "--discard-dirty to drop them");
}

TEST_F(AttachTest, CreateForceRefusesACacheItCannotRead) {
  std::vector<std::byte> junk(16, std::byte{0x5a});
  ssd_.write_now(format::kSuperblockOffset[0] + 4032, junk);
  ssd_.write_now(format::kSuperblockOffset[1] + 4032, junk);
  Status s = CheckNoDirtyData(*runner_, ssd_);
  EXPECT_EQ(s.code(), Status::Code::kCorruption);
  EXPECT_EQ(s.message(),
            "cannot tell whether ssd holds dirty data (tiercache superblock on ssd is corrupt: "
            "both copies fail their checksum); add --discard-dirty to overwrite "
            "it anyway (any dirty data on it is lost)");
}

TEST_F(AttachTest, RebindsWhenTheCleanDataMatches) {
  // Line 7's dirty sectors differ on the core, as they may: only clean sectors are compared.
  write_lines({{0, Record(5, 16, 0)}, {7, Record(6, 16, 3)}, {62, Record(1023, 4, 0)}});
  std::vector<std::byte> other(3 * kSectorSize, std::byte{0xee});
  core_.write_now(6 * kLine, other);
  LoadedSuperblock before = ReadSuperblock(*runner_, ssd_).value();
  Result<AttachReport> r = attach();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->unchanged);
  EXPECT_EQ(r->previous_core, "/dev/old-core");
  EXPECT_EQ(r->compared_lines, 3u);
  EXPECT_EQ(r->compared_bytes, (16 + 13 + 4) * uint64_t{kSectorSize});
  EXPECT_EQ(r->dirty_lines, 1u);

  LoadedSuperblock after = ReadSuperblock(*runner_, ssd_).value();
  EXPECT_EQ(after.sb.core, new_core_);
  EXPECT_EQ(after.sb.sequence, before.sb.sequence + 1);
  EXPECT_EQ(after.copy, 1 - before.copy);  // the other copy, as every superblock update
  Superblock rest = after.sb;
  rest.core = before.sb.core;
  rest.sequence = before.sb.sequence;
  EXPECT_EQ(rest, before.sb);  // nothing else changed (clean_shutdown included)
  // The daemon now opens it with the new core, warm.
  Result<StorePtr> store = runner_->run_result<StorePtr>(
      [&](auto done) { MetadataStore::Open(ssd_, new_core_, std::move(done)); });
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ((*store)->loaded_record(0), Record(5, 16, 0));
}

TEST_F(AttachTest, RefusesOneDifferingCleanBlock) {
  write_lines({{0, Record(5, 16, 0)}, {7, Record(6, 16, 3)}, {62, Record(1023, 4, 0)}});
  std::vector<std::byte> one(1, std::byte{0x01});
  core_.write_now(6 * kLine + 5 * kSectorSize + 100, one);  // a clean sector of line 7
  std::vector<std::byte> before = superblocks();
  Result<AttachReport> r = attach(/*force=*/true);  // --force does not override a mismatch
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(r.status().message(),
            "core /dev/new-core does not hold the data cache ssd holds clean for it: 1 of 3 "
            "compared lines differ (first: cache line 7, core offset 413696); the superblock was "
            "not changed");
  EXPECT_EQ(superblocks(), before);
}

TEST_F(AttachTest, RefusesAnotherSize) {
  new_core_.size = kCoreSize + 4096;
  std::vector<std::byte> before = superblocks();
  Result<AttachReport> r = attach();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "core /dev/new-core is 67112960 bytes but cache ssd was created for 67108864 bytes; "
            "the superblock was not changed");
  EXPECT_EQ(superblocks(), before);
}

TEST_F(AttachTest, DirtyDataWithNothingToCompareNeedsForce) {
  write_lines({{3, Record(6, 3, 3)}});
  std::vector<std::byte> before = superblocks();
  Result<AttachReport> r = attach();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "cache ssd holds no clean data to compare with core /dev/new-core, but 1 dirty lines "
            "that would be written to it; the superblock was not changed; add --force to re-bind "
            "without a comparison");
  EXPECT_EQ(superblocks(), before);
  r = attach(/*force=*/true);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->compared_lines, 0u);
  EXPECT_EQ(ReadSuperblock(*runner_, ssd_)->sb.core, new_core_);
}

TEST_F(AttachTest, AnEmptyCacheRebindsWithoutComparing) {
  Result<AttachReport> r = attach();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->compared_lines, 0u);
  EXPECT_EQ(ReadSuperblock(*runner_, ssd_)->sb.core, new_core_);
}

TEST_F(AttachTest, TheSameCoreChangesNothing) {
  new_core_ = old_core_;
  std::vector<std::byte> before = superblocks();
  Result<AttachReport> r = attach();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->unchanged);
  EXPECT_EQ(superblocks(), before);
}

TEST_F(AttachTest, SamplesAtMost64LinesSpreadOverTheCache) {
  std::vector<std::pair<uint64_t, LineRecord>> lines;
  for (uint64_t i = 0; i < 200; ++i) lines.push_back({i, Record(i * 3, 1, 0)});
  write_lines(lines);
  // Clean line 199 is not sampled (picks are floor(k * 200 / 64), the last 196); line 196 is.
  std::vector<std::byte> one(1, std::byte{0x01});
  core_.write_now(199 * 3 * kLine, one);
  Result<AttachReport> r = attach();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->compared_lines, kAttachSampleLines);
  EXPECT_EQ(r->compared_bytes, kAttachSampleLines * kSectorSize);

  core_.write_now(196 * 3 * kLine, one);
  new_core_.fingerprint = 0x7777;
  r = attach();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("1 of 64 compared lines differ (first: cache line 196, "
                                      "core offset 38535168)"),
            std::string::npos)
      << r.status().message();
}

}  // namespace
}  // namespace tiercache
