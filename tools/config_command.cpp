#include "tools/config_command.h"

#include <string>
#include <vector>

#include "daemon/tiercached/config_file.h"
#include "tools/exit_codes.h"

namespace tiercache {

int RunConfigCheck(const CliOptions& options, CommandIo& io) {
  DaemonConfig config;
  const std::vector<std::string> errors = LoadConfigFile(options.config_file, &config);
  if (errors.empty()) {
    io.out << options.config_file << ": ok\n";
    return kExitOk;
  }
  for (const std::string& error : errors) io.err << error << "\n";
  return kExitFailed;
}

}  // namespace tiercache
