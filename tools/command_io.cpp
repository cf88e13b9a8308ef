#include "tools/command_io.h"

namespace tiercache {

void PrintJsonLine(CommandIo& io, const ControlJson& value) {
  io.out << ToLine(value);
  io.out.flush();
}

int ReportFailure(CommandIo& io, const char* verb, const std::string& code,
                  const std::string& message, int exit_code) {
  if (io.json) {
    ControlJson error = ControlJson::object();
    error["ok"] = false;
    error["error"] = message;
    error["code"] = code;
    PrintJsonLine(io, error);
  }
  io.err << "tiercache " << verb << ": " << message << "\n";
  io.err.flush();
  return exit_code;
}

}  // namespace tiercache
