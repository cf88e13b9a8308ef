#include "tools/command_io.h"

namespace tiercache {

void PrintJsonLine(CommandIo& io, const ControlJson& value) {
  io.out << ToLine(value);
  io.out.flush();
}

ControlJson ErrorObject(const std::string& message, const std::string& code) {
  ControlJson error = ControlJson::object();
  error["ok"] = false;
  error["error"] = message;
  error["code"] = code;
  return error;
}

int ReportFailure(CommandIo& io, const char* verb, const std::string& code,
                  const std::string& message, int exit_code) {
  if (io.json) PrintJsonLine(io, ErrorObject(message, code));
  io.err << "tiercache " << verb << ": " << message << "\n";
  io.err.flush();
  return exit_code;
}

}  // namespace tiercache
