#include "cachelib/metadata/core_identity.h"

#include <gtest/gtest.h>
#include <cstdlib>
#include <cstdio>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <xxhash.h>

#include <filesystem>
#include <fstream>

#include "cachelib/metadata/sysfs_identity.h"

namespace tiercache {
namespace {

namespace fs = std::filesystem;

class CoreIdentityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("core_identity_test." + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string MakeFile(const std::string& name, size_t size) {
    std::string path = (dir_ / name).string();
    std::ofstream(path) << std::string(size, 'x');
    return path;
  }
  fs::path dir_;
};

TEST_F(CoreIdentityTest, FileSizeAndInodeFingerprint) {
  std::string path = MakeFile("core.img", 12345);
  auto id = IdentifyCore(path);
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_EQ(id->path, path);
  EXPECT_EQ(id->size, 12345u);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  unsigned char key[16];
  for (int i = 0; i < 8; ++i) {
    key[i] = static_cast<unsigned char>(uint64_t(st.st_dev) >> (8 * i));
    key[8 + i] = static_cast<unsigned char>(uint64_t(st.st_ino) >> (8 * i));
  }
  EXPECT_EQ(id->fingerprint, XXH64(key, 16, 0));
}

TEST_F(CoreIdentityTest, SameFileSameFingerprintOtherFileDifferent) {
  std::string a = MakeFile("a", 4096);
  std::string b = MakeFile("b", 4096);
  std::string link = (dir_ / "a-link").string();
  fs::create_hard_link(a, link);
  auto ida = IdentifyCore(a), idb = IdentifyCore(b), idl = IdentifyCore(link);
  ASSERT_TRUE(ida.ok() && idb.ok() && idl.ok());
  EXPECT_EQ(ida->fingerprint, idl->fingerprint);  // another name for the same inode
  EXPECT_NE(ida->fingerprint, idb->fingerprint);
  EXPECT_EQ(ida->size, idb->size);
}

TEST_F(CoreIdentityTest, MissingPathIsNotFound) {
  std::string path = (dir_ / "nope").string();
  auto id = IdentifyCore(path);
  EXPECT_EQ(id.status().code(), Status::Code::kNotFound);
  EXPECT_EQ(id.status().message(), "core " + path + " does not exist");
}

TEST_F(CoreIdentityTest, DirectoryIsRefused) {
  auto id = IdentifyCore(dir_.string());
  EXPECT_EQ(id.status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(id.status().message(),
            "core " + dir_.string() + " is neither a regular file nor a block device");
}

// A fake /sys/dev/block: 254:0 is disk vda (serial S1), 254:1 its partition 1, 7:0 a disk
// without identity attributes.
TEST_F(CoreIdentityTest, BlockFingerprintFromSysfs) {
  fs::path devices = dir_ / "devices";
  fs::path block = dir_ / "dev-block";
  fs::create_directories(devices / "vda" / "vda1");
  fs::create_directories(devices / "loop0");
  fs::create_directories(block);
  std::ofstream(devices / "vda" / "serial") << "S1\n";
  std::ofstream(devices / "vda" / "vda1" / "partition") << "1\n";
  std::ofstream(devices / "vda" / "vda1" / "start") << "2048\n";
  fs::create_directory_symlink(devices / "vda", block / "254:0");
  fs::create_directory_symlink(devices / "vda" / "vda1", block / "254:1");
  fs::create_directory_symlink(devices / "loop0", block / "7:0");
  auto hash = [](const std::string& s) { return XXH64(s.data(), s.size(), 0); };

  EXPECT_EQ(BlockDeviceFingerprint(block, 254, 0), hash("blk:serial=S1"));
  EXPECT_EQ(BlockDeviceFingerprint(block, 254, 1), hash("blk:serial=S1;part=1;start=2048"));
  EXPECT_EQ(BlockDeviceFingerprint(block, 7, 0), hash("rdev:7:0"));
  EXPECT_EQ(BlockDeviceFingerprint(block, 8, 0), hash("rdev:8:0"));  // not in sysfs at all
  // A WWID wins over the serial; the same disk under another device number keeps its identity.
  std::ofstream(devices / "vda" / "wwid") << "naa.5000\n";
  fs::create_directory_symlink(devices / "vda", block / "259:3");
  EXPECT_EQ(BlockDeviceFingerprint(block, 254, 0), hash("blk:wwid=naa.5000"));
  EXPECT_EQ(BlockDeviceFingerprint(block, 259, 3), BlockDeviceFingerprint(block, 254, 0));
}

// A real block device: a loop device over a 24 MiB file (make test runs as root; losetup is in
// util-linux, installed by scripts/install-deps.sh).
TEST(CoreIdentityBlockTest, LoopDeviceSizeAndStableFingerprint) {
  std::string file = "/var/tmp/tiercache-identity-" + std::to_string(getpid()) + ".img";
  ASSERT_EQ(::truncate(file.c_str(), 0), -1);  // must not exist yet
  { std::ofstream(file).flush(); }
  ASSERT_EQ(::truncate(file.c_str(), 24 << 20), 0);
  std::string dev;
  if (FILE* p = popen(("losetup -f --show " + file + " 2>&1").c_str(), "r")) {
    char line[256] = {};
    if (fgets(line, sizeof line, p)) dev = line;
    pclose(p);
  }
  while (!dev.empty() && (dev.back() == '\n' || dev.back() == ' ')) dev.pop_back();
  ASSERT_EQ(dev.rfind("/dev/loop", 0), 0u) << "losetup failed: " << dev;
  auto id = IdentifyCore(dev);
  auto again = IdentifyCore(dev);
  std::system(("losetup -d " + dev).c_str());
  std::remove(file.c_str());
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_EQ(id->size, 24u << 20);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->fingerprint, id->fingerprint);
  EXPECT_NE(id->fingerprint, 0u);
}

}  // namespace
}  // namespace tiercache
