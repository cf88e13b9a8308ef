#include "cachelib/metadata/core_identity.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <optional>

#include "cachelib/metadata/sysfs_identity.h"

namespace tiercache {
namespace {

uint64_t Hash(std::string_view s) { return XXH64(s.data(), s.size(), 0); }

// The trimmed first line of a sysfs attribute, or nullopt if missing or empty.
std::optional<std::string> ReadAttr(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  while (!line.empty() && (line.back() == ' ' || line.back() == '\n' || line.back() == '\0')) {
    line.pop_back();
  }
  if (line.empty()) return std::nullopt;
  return line;
}

// A stable hardware identity of the whole disk at sysfs directory `disk`, if it exposes one.
std::optional<std::string> DiskIdentity(const std::filesystem::path& disk) {
  for (const char* attr :
       {"wwid", "device/wwid", "device/serial", "serial", "dm/uuid", "md/uuid"}) {
    if (auto v = ReadAttr(disk / attr)) return std::string(attr) + "=" + *v;
  }
  return std::nullopt;
}

uint64_t FileFingerprint(const struct stat& st) {
  unsigned char key[16];
  uint64_t dev = st.st_dev, ino = st.st_ino;
  for (int i = 0; i < 8; ++i) {
    key[i] = static_cast<unsigned char>(dev >> (8 * i));
    key[8 + i] = static_cast<unsigned char>(ino >> (8 * i));
  }
  return XXH64(key, sizeof(key), 0);
}

}  // namespace

uint64_t BlockDeviceFingerprint(const std::string& sysfs_dev_block, unsigned maj, unsigned min) {
  namespace fs = std::filesystem;
  const std::string number = std::to_string(maj) + ":" + std::to_string(min);
  std::error_code ec;
  fs::path dir = fs::canonical(fs::path(sysfs_dev_block) / number, ec);
  if (!ec) {
    std::optional<std::string> part = ReadAttr(dir / "partition");
    fs::path disk = part ? dir.parent_path() : dir;
    if (auto id = DiskIdentity(disk)) {
      std::string key = "blk:" + *id;
      if (part) key += ";part=" + *part + ";start=" + ReadAttr(dir / "start").value_or("?");
      return Hash(key);
    }
  }
  return Hash("rdev:" + number);
}

Result<CoreIdentity> IdentifyCore(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    if (err == ENOENT) return Status::NotFound("core " + path + " does not exist");
    return Status::FromErrno(err, "open core " + path);
  }
  CoreIdentity id;
  id.path = path;
  struct stat st {};
  Status status;
  if (::fstat(fd, &st) != 0) {
    status = Status::FromErrno(errno, "stat core " + path);
  } else if (S_ISREG(st.st_mode)) {
    id.size = static_cast<uint64_t>(st.st_size);
    id.fingerprint = FileFingerprint(st);
  } else if (S_ISBLK(st.st_mode)) {
    uint64_t size = 0;
    if (::ioctl(fd, BLKGETSIZE64, &size) != 0) {
      status = Status::FromErrno(errno, "BLKGETSIZE64 on core " + path);
    }
    id.size = size;
    id.fingerprint = BlockDeviceFingerprint("/sys/dev/block", major(st.st_rdev), minor(st.st_rdev));
  } else {
    status =
        Status::InvalidArgument("core " + path + " is neither a regular file nor a block device");
  }
  ::close(fd);
  if (!status.ok()) return status;
  return id;
}

bool IsSameDevice(const std::string& path, const CoreIdentity& id) {
  Result<CoreIdentity> other = IdentifyCore(path);
  return other.ok() && other->fingerprint == id.fingerprint && other->size == id.size;
}

}  // namespace tiercache
