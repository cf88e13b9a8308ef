#include "tests/support/temp_dir.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <vector>

namespace tiercache::testing {

TempDir::TempDir(const std::string& prefix, const std::string& parent) {
  const std::string name = parent + "/" + prefix + "-XXXXXX";
  std::vector<char> tmpl(name.begin(), name.end());
  tmpl.push_back('\0');
  if (mkdtemp(tmpl.data()) != nullptr) path_ = tmpl.data();
}

TempDir::~TempDir() {
  std::error_code ignored;  // a test may have removed it already
  if (ok()) std::filesystem::remove_all(path_, ignored);
}

}  // namespace tiercache::testing
