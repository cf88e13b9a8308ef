#include "daemon/control/control_paths.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>

namespace tiercache {

std::string RunDirectory() {
  const char* env = std::getenv(std::string(kRunDirectoryEnv).c_str());
  if (env != nullptr && env[0] != '\0') return env;
  return std::string(kDefaultRunDirectory);
}

std::string CacheName(std::string_view cache_path) {
  while (cache_path.size() > 1 && cache_path.back() == '/') cache_path.remove_suffix(1);
  size_t slash = cache_path.rfind('/');
  if (slash == std::string_view::npos) return std::string(cache_path);
  return std::string(cache_path.substr(slash + 1));
}

std::string DefaultControlPath(std::string_view cache_path) {
  return RunDirectory() + "/" + CacheName(cache_path) + ".ctl";
}

std::string DefaultExportPath(std::string_view cache_path) {
  return RunDirectory() + "/" + CacheName(cache_path) + ".sock";
}

std::vector<std::string> ListControlSockets() {
  std::vector<std::string> out;
  std::error_code ec;
  std::filesystem::directory_iterator it(RunDirectory(), ec);
  if (ec) return out;
  for (const auto& entry : it) {
    if (entry.path().extension() == ".ctl") out.push_back(entry.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

Status EnsureRunDirectory() {
  // Like mkdir -p: a minimal system (an initramfs, a container) may not even have /run.
  std::string dir = RunDirectory();
  for (size_t slash = dir.find('/', 1); ; slash = dir.find('/', slash + 1)) {
    std::string part = dir.substr(0, slash);
    bool last = slash == std::string::npos;
    if (mkdir(part.c_str(), last ? 0700 : 0755) != 0 && errno != EEXIST) {
      return Status::FromErrno(errno, "mkdir " + part);
    }
    if (last) return Status::Ok();
  }
}

std::string AbsolutePath(const std::string& path) {
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(path, ec);
  return ec ? path : abs.lexically_normal().string();
}

}  // namespace tiercache
