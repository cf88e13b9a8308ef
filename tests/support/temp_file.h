// TempFile: a sparse file of a given size in /var/tmp (a disk file system: O_DIRECT works there,
// unlike on a tmpfs /tmp), removed when the object goes. For tests of file-backed devices.
// Not thread-safe; one owner.
#pragma once

#include <cstdint>
#include <string>

namespace tiercache::testing {

class TempFile {
 public:
  // `prefix` names the file (/var/tmp/PREFIX-XXXXXX); ok() is false if it could not be made.
  TempFile(const std::string& prefix, uint64_t size);
  ~TempFile();
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  bool ok() const { return !path_.empty(); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace tiercache::testing
