// CommandIo: where a verb writes (stdout/stderr in main, string streams in tests) and the shared
// conventions for reporting: text to `err` on failure, and with --json one JSON object per line
// on `out`, errors included ({"ok":false,"error":...,"code":...}). Not thread-safe.
#pragma once

#include <ostream>
#include <string>

#include "daemon/control/control_json.h"

namespace tiercache {

struct CommandIo {
  std::ostream& out;
  std::ostream& err;
  bool json = false;          // --json
  bool progress_tty = false;  // redraw one progress line with '\r' instead of one line each
};

// Prints `value` as one JSON line on io.out and flushes.
void PrintJsonLine(CommandIo& io, const ControlJson& value);

// {"ok":false,"error":message,"code":code}: what --json prints for any failure.
ControlJson ErrorObject(const std::string& message, const std::string& code);

// Reports a failure of `verb` ("tiercache <verb>: <message>" on err; with --json also the error
// object with `code`) and returns `exit_code`.
int ReportFailure(CommandIo& io, const char* verb, const std::string& code,
                  const std::string& message, int exit_code);

}  // namespace tiercache
