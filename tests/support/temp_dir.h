// TempDir: an empty directory made for a test (PARENT/PREFIX-XXXXXX), removed with everything in
// it when the object goes. PARENT defaults to /tmp (short enough for Unix socket paths); files
// needing O_DIRECT want /var/tmp. Not thread-safe; one owner.
#pragma once

#include <string>

namespace tiercache::testing {

class TempDir {
 public:
  // ok() is false if the directory could not be made.
  explicit TempDir(const std::string& prefix, const std::string& parent = "/tmp");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  bool ok() const { return !path_.empty(); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace tiercache::testing
