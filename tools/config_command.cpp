#include "tools/config_command.h"

#include <string>
#include <vector>

#include "daemon/tiercached/config_file.h"
#include "tools/exit_codes.h"

namespace tiercache {

int RunConfigCheck(const CliOptions& options, CommandIo& io) {
  DaemonConfig config;
  std::vector<std::string> errors = LoadConfigFile(options.config_file, &config);
  // The rules between options, as tiercached checks them once the file is read; with the other
  // problems (every one is printed), a value the file got wrong counts as its default here.
  if (Result<CleaningOptions> cleaning = CleaningOptionsFor(config); !cleaning.ok()) {
    errors.push_back(options.config_file + ": " + cleaning.status().message());
  }
  if (errors.empty()) {
    io.out << options.config_file << ": ok\n";
    return kExitOk;
  }
  for (const std::string& error : errors) io.err << error << "\n";
  return kExitFailed;
}

}  // namespace tiercache
