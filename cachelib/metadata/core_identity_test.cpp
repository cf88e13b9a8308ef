#include "cachelib/metadata/core_identity.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <xxhash.h>

#include <filesystem>
#include <fstream>

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

TEST(CoreIdentityBlockTest, BlockDeviceSizeMatchesSysfs) {
  // Any readable, non-empty block device of this machine will do.
  for (const auto& entry : fs::directory_iterator("/dev")) {
    struct stat st {};
    if (::stat(entry.path().c_str(), &st) != 0 || !S_ISBLK(st.st_mode)) continue;
    std::ifstream size_attr("/sys/dev/block/" + std::to_string(major(st.st_rdev)) + ":" +
                            std::to_string(minor(st.st_rdev)) + "/size");
    uint64_t sectors = 0;
    if (!(size_attr >> sectors) || sectors == 0) continue;
    auto id = IdentifyCore(entry.path().string());
    if (!id.ok()) continue;  // e.g. no permission
    EXPECT_EQ(id->size, sectors * 512) << entry.path();
    auto again = IdentifyCore(entry.path().string());
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->fingerprint, id->fingerprint);
    return;
  }
  GTEST_SKIP() << "no readable block device";
}

}  // namespace
}  // namespace tiercache
