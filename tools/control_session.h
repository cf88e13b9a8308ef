// Session: one control verb's connection to tiercached: resolves the control path, connects, and
// turns every failure into the verb's report and exit code (tools/exit_codes.h). With --json it
// prints progress lines and replies. Owns its ControlClient; not thread-safe.
#pragma once

#include <memory>
#include <string>

#include "daemon/control/control_json.h"
#include "tools/cli_options.h"
#include "tools/command_io.h"
#include "tools/control_client.h"

namespace tiercache {

class Session {
 public:
  Session(const CliOptions& options, CommandIo& io, const char* verb);

  bool connected() const { return client_ != nullptr; }
  int exit_code() const { return exit_; }

  // Sends `request`; returns true with *reply set when the daemon answered "ok":true. Otherwise
  // reports the failure and sets exit_code(). --json prints progress lines and the reply (a
  // successful one only with `print_reply`: false for a question the verb asks first).
  bool call(const ControlJson& request, ControlJson* reply,
            const ControlClient::ProgressCallback& on_progress = {}, bool print_reply = true);

 private:
  // A socket found by --cache alone may belong to another cache of the same file name: then the
  // verb fails (NoDaemon) before it sends anything.
  void check_serves(const std::string& cache, const std::string& control);

  CommandIo& io_;
  const char* verb_;
  std::unique_ptr<ControlClient> client_;
  int exit_ = 0;
};

// {"cmd": cmd}
ControlJson Request(const char* cmd);

}  // namespace tiercache
