// LogToSyslog: sends the Logger's event lines to syslog(3) (the journal, where one runs), for a
// daemon that detached from the terminal and must not hold the caller's stderr open.
#pragma once

#include <string_view>

namespace tiercache {

// From now on events go to syslog as `ident`[pid], facility daemon, at the priority of their
// level (debug, info, warning, err). Main thread, before other threads log.
void LogToSyslog(const char* ident);

// The syslog priority of an event line's `level=` field (LOG_INFO when it has none).
int SyslogPriorityOf(std::string_view line);

}  // namespace tiercache
