#include "daemon/control/control_paths.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "tests/support/temp_dir.h"

namespace tiercache {
namespace {

class ControlPathsTest : public ::testing::Test {
 protected:
  void TearDown() override { unsetenv("TIERCACHE_RUN_DIR"); }
};

TEST_F(ControlPathsTest, CacheNameIsTheBasename) {
  EXPECT_EQ(CacheName("/dev/nvme0n1p2"), "nvme0n1p2");
  EXPECT_EQ(CacheName("/srv/cache/ssd.img"), "ssd.img");
  EXPECT_EQ(CacheName("ssd.img"), "ssd.img");
  EXPECT_EQ(CacheName("/dev/disk/by-id/nvme-X/"), "nvme-X");
}

TEST_F(ControlPathsTest, DefaultsLiveInRunTiercache) {
  unsetenv("TIERCACHE_RUN_DIR");
  EXPECT_EQ(RunDirectory(), "/run/tiercache");
  EXPECT_EQ(DefaultControlPath("/dev/nvme0n1p2"), "/run/tiercache/nvme0n1p2.ctl");
  EXPECT_EQ(DefaultExportPath("/dev/nvme0n1p2"), "/run/tiercache/nvme0n1p2.sock");
}

TEST_F(ControlPathsTest, EnvironmentOverridesTheRunDirectory) {
  setenv("TIERCACHE_RUN_DIR", "/tmp/tc-run", 1);
  EXPECT_EQ(DefaultControlPath("/srv/ssd.img"), "/tmp/tc-run/ssd.img.ctl");
  EXPECT_EQ(DefaultExportPath("/srv/ssd.img"), "/tmp/tc-run/ssd.img.sock");
  setenv("TIERCACHE_RUN_DIR", "", 1);
  EXPECT_EQ(RunDirectory(), "/run/tiercache");
}

TEST_F(ControlPathsTest, ListsOnlyControlSocketsSorted) {
  testing::TempDir tmp("tc-paths");
  ASSERT_TRUE(tmp.ok());
  const std::string dir = tmp.path();
  setenv("TIERCACHE_RUN_DIR", dir.c_str(), 1);
  for (const char* name : {"b.ctl", "a.ctl", "a.sock", "notes.txt"}) {
    std::ofstream(dir + "/" + name) << "x";
  }
  EXPECT_EQ(ListControlSockets(), (std::vector<std::string>{dir + "/a.ctl", dir + "/b.ctl"}));
  std::filesystem::remove_all(dir);
  EXPECT_TRUE(ListControlSockets().empty());
  ASSERT_TRUE(EnsureRunDirectory().ok());
  EXPECT_TRUE(std::filesystem::is_directory(dir));
  // Missing parents are created too (a minimal system may lack /run).
  setenv("TIERCACHE_RUN_DIR", (dir + "/run/tiercache").c_str(), 1);
  ASSERT_TRUE(EnsureRunDirectory().ok());
  EXPECT_TRUE(std::filesystem::is_directory(dir + "/run/tiercache"));
  EXPECT_EQ(std::filesystem::status(dir + "/run/tiercache").permissions() &
                std::filesystem::perms::all,
            std::filesystem::perms::owner_all);
  setenv("TIERCACHE_RUN_DIR", dir.c_str(), 1);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tiercache
