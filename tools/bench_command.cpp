#include "tools/bench_command.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "tools/exit_codes.h"

namespace tiercache {

std::vector<std::string> BenchCandidates(const std::string& self_exe) {
  std::filesystem::path dir = std::filesystem::path(self_exe).parent_path();
  std::filesystem::path build = dir.parent_path();
  return {(dir / "tiercache-bench").string(), (build / "bench/runner/tiercache-bench").string(),
          (build / "bench/tiercache-bench").string()};
}

std::vector<std::string> BenchArgv(const std::vector<std::string>& args) {
  std::vector<std::string> argv{"tiercache-bench"};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

int RunBench(const CliOptions& options, CommandIo& io) {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) {
    return ReportFailure(io, "bench", "IoError",
                         "cannot find the tiercache binary: " + ec.message(), kExitFailed);
  }
  std::vector<std::string> args = BenchArgv(options.bench_args);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  io.out.flush();
  io.err.flush();
  std::string tried;
  for (const std::string& path : BenchCandidates(self.string())) {
    if (access(path.c_str(), X_OK) != 0) {
      tried += (tried.empty() ? "" : ", ") + path;
      continue;
    }
    execv(path.c_str(), argv.data());
    return ReportFailure(io, "bench", "IoError",
                         "cannot run " + path + ": " + std::strerror(errno), kExitFailed);
  }
  return ReportFailure(io, "bench", "NotFound",
                       "tiercache-bench not found (tried " + tried +
                           "); it is built from bench/ and installed next to tiercache",
                       kExitFailed);
}

}  // namespace tiercache
