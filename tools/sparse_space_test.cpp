// Tests for the sparse cache file check of `tiercache create` (sparse_space.h).
#include "tools/sparse_space.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <filesystem>

#include "tests/support/temp_dir.h"

namespace tiercache {
namespace {

constexpr uint64_t kMiB = 1 << 20;

TEST(SparseSpaceWarningTest, HolesLargerThanTheFreeSpaceAreNamedWithTheFix) {
  FileSpace space{.size = 96 * kMiB, .allocated = 8 * kMiB, .free = 40 * kMiB};
  EXPECT_EQ(SparseSpaceWarning("/srv/ssd.img", space).value_or("none"),
            "/srv/ssd.img is a sparse file: 88 MiB of it is not allocated and its filesystem has "
            "40 MiB free. When that runs out, the cache's writes fail and it stops caching "
            "(health: failed) until space is freed and `tiercache reset-health` runs. Allocate "
            "it before starting tiercached: fallocate -l 100663296 /srv/ssd.img");
}

TEST(SparseSpaceWarningTest, AFileThatFitsGetsNone) {
  // Holes exactly as large as the free space still fit.
  EXPECT_FALSE(SparseSpaceWarning("f", {.size = 96 * kMiB, .allocated = 56 * kMiB,
                                        .free = 40 * kMiB}));
  // Fully allocated (blocks round up past the size) on a full filesystem.
  EXPECT_FALSE(SparseSpaceWarning("f", {.size = 96 * kMiB, .allocated = 96 * kMiB + 4096,
                                        .free = 0}));
}

class MeasureFileSpaceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(tmp_.ok());
    dir_ = tmp_.path();
  }
  testing::TempDir tmp_{"tc-sparse", "/var/tmp"};
  std::string dir_;
};

TEST_F(MeasureFileSpaceTest, ASparseFileLargerThanTheFilesystemIsWarnedAbout) {
  struct statvfs fs {};
  ASSERT_EQ(statvfs(dir_.c_str(), &fs), 0);
  const uint64_t free = uint64_t(fs.f_bavail) * fs.f_frsize;
  const std::string path = dir_ + "/ssd.img";
  // A hole 1 GiB larger than what the filesystem has free.
  std::filesystem::resize_file((close(open(path.c_str(), O_CREAT | O_WRONLY, 0644)), path),
                               free + (1ull << 30));
  auto space = MeasureFileSpace(path);
  ASSERT_TRUE(space.ok()) << space.status().ToString();
  ASSERT_TRUE(space->has_value());
  EXPECT_EQ((*space)->size, free + (1ull << 30));
  EXPECT_EQ((*space)->allocated, 0u);
  EXPECT_NE(SparseSpaceWarning(path, **space).value_or("none").find(" is a sparse file: "),
            std::string::npos);
}

TEST_F(MeasureFileSpaceTest, AWrittenFileFitsAndABlockDeviceIsNotMeasured) {
  const std::string path = dir_ + "/written.img";
  int fd = open(path.c_str(), O_CREAT | O_WRONLY, 0644);
  ASSERT_GE(fd, 0);
  std::string data(kMiB, 'x');
  ASSERT_EQ(write(fd, data.data(), data.size()), ssize_t(data.size()));
  ASSERT_EQ(fsync(fd), 0);
  close(fd);
  auto space = MeasureFileSpace(path);
  ASSERT_TRUE(space.ok()) << space.status().ToString();
  ASSERT_TRUE(space->has_value());
  EXPECT_GE((*space)->allocated, kMiB);
  EXPECT_FALSE(SparseSpaceWarning(path, **space));

  auto null_device = MeasureFileSpace("/dev/null");  // a character device: not a file either
  ASSERT_TRUE(null_device.ok());
  EXPECT_FALSE(null_device->has_value());
  EXPECT_EQ(MeasureFileSpace(dir_ + "/missing").status().ToString(),
            "IoError: stat " + dir_ + "/missing: No such file or directory");
}

}  // namespace
}  // namespace tiercache
