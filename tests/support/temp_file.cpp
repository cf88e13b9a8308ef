#include "tests/support/temp_file.h"

#include <unistd.h>

#include <cstdlib>
#include <vector>

namespace tiercache::testing {

TempFile::TempFile(const std::string& prefix, uint64_t size) {
  std::string name = "/var/tmp/" + prefix + "-XXXXXX";
  std::vector<char> tmpl(name.begin(), name.end());
  tmpl.push_back('\0');
  int fd = mkstemp(tmpl.data());
  if (fd < 0) return;
  const bool sized = ftruncate(fd, off_t(size)) == 0;
  close(fd);
  if (!sized) {
    unlink(tmpl.data());
    return;
  }
  path_ = tmpl.data();
}

TempFile::~TempFile() {
  if (ok()) unlink(path_.c_str());
}

}  // namespace tiercache::testing
