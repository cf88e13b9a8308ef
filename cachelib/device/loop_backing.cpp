#include "cachelib/device/loop_backing.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <fstream>

namespace tiercache {
namespace {

constexpr unsigned kLoopMajor = 7;

// The file or device `path` stores its data on: its loop backing file, or itself.
std::string Underlying(const std::string& path) {
  std::string backing = LoopBackingFile(path);
  return backing.empty() ? path : backing;
}

}  // namespace

std::string LoopBackingFile(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0 || !S_ISBLK(st.st_mode) || major(st.st_rdev) != kLoopMajor) {
    return "";
  }
  std::ifstream in("/sys/dev/block/" + std::to_string(major(st.st_rdev)) + ":" +
                   std::to_string(minor(st.st_rdev)) + "/loop/backing_file");
  std::string file;
  std::getline(in, file);
  // A deleted backing file reads "PATH (deleted)": nothing else can open it by path.
  struct stat backing {};
  return !file.empty() && stat(file.c_str(), &backing) == 0 ? file : "";
}

bool SameStorage(const std::string& a, const std::string& b) {
  struct stat x {}, y {};
  if (stat(Underlying(a).c_str(), &x) != 0 || stat(Underlying(b).c_str(), &y) != 0) return false;
  if (S_ISBLK(x.st_mode) && S_ISBLK(y.st_mode)) return x.st_rdev == y.st_rdev;
  return x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

}  // namespace tiercache
