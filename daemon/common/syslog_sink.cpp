#include "daemon/common/syslog_sink.h"

#include <syslog.h>

#include <string>

#include "cachelib/common/logger.h"

namespace tiercache {

int SyslogPriorityOf(std::string_view line) {
  // The level is the line's second field: "ts=... level=warn event=...".
  const size_t at = line.find(" level=");
  if (at == std::string_view::npos) return LOG_INFO;
  const std::string_view rest = line.substr(at + 7);
  const std::string_view level = rest.substr(0, rest.find(' '));
  const std::optional<LogLevel> parsed = ParseLogLevel(level);
  if (!parsed) return LOG_INFO;
  switch (*parsed) {
    case LogLevel::kDebug: return LOG_DEBUG;
    case LogLevel::kInfo: return LOG_INFO;
    case LogLevel::kWarn: return LOG_WARNING;
    case LogLevel::kError: return LOG_ERR;
  }
  return LOG_INFO;
}

void LogToSyslog(const char* ident) {
  openlog(ident, LOG_PID, LOG_DAEMON);
  Logger::instance().set_sink([](std::string_view line) {
    if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
    syslog(SyslogPriorityOf(line), "%.*s", int(line.size()), line.data());
  });
}

}  // namespace tiercache
