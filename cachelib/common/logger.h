// Logger: structured event lines for the daemon and the engine, one event per line as key=value
// pairs ("ts=2026-12-01T21:40:00.123Z level=info event=start cache=ssd.img"), written to stderr
// (journald keeps them) or to a sink a test installs. One process-wide instance. Thread-safe: a
// line is formatted first and written whole under a mutex.
#pragma once

#include <functional>
#include <initializer_list>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace tiercache {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3 };

// "debug", "info", "warn", "error".
const char* LogLevelName(LogLevel level);
// The level named `name` (as LogLevelName prints it), or nullopt.
std::optional<LogLevel> ParseLogLevel(std::string_view name);

// One key=value pair of an event; the value is quoted on output when it needs it.
struct LogField {
  std::string_view key;
  std::string value;
};

class Logger {
 public:
  using Sink = std::function<void(std::string_view line)>;  // gets the line with its '\n'
  using TimeSource = std::function<std::string()>;          // the ts value

  static Logger& instance();

  // Events below `level` are dropped. Default: info.
  void set_level(LogLevel level);
  bool enabled(LogLevel level) const;
  // Replaces stderr (nullptr: back to stderr) and the wall-clock ts (nullptr: back to it). Tests.
  void set_sink(Sink sink);
  void set_time_source(TimeSource time);

  // Writes "ts=... level=... event=EVENT k=v ..." if `level` is enabled.
  void log(LogLevel level, std::string_view event, std::initializer_list<LogField> fields = {});

  // The line itself: value quoted ("...", with \" \\ \n escapes) when empty or holding a space,
  // '=', '"', '\\' or a control character. Ends with '\n'.
  static std::string FormatLine(std::string_view ts, LogLevel level, std::string_view event,
                                std::initializer_list<LogField> fields);
  // The current UTC time as 2026-12-01T21:40:00.123Z. Log lines are for people and journald,
  // never for decisions, so the wall clock is fine here.
  static std::string WallClockTimestamp();

 private:
  Logger() = default;
  mutable std::mutex mu_;
  LogLevel level_ = LogLevel::kInfo;  // GUARDED_BY(mu_)
  Sink sink_;                         // GUARDED_BY(mu_)
  TimeSource time_;                   // GUARDED_BY(mu_)
};

// Shorthands for Logger::instance().log(level, ...).
void LogDebug(std::string_view event, std::initializer_list<LogField> fields = {});
void LogInfo(std::string_view event, std::initializer_list<LogField> fields = {});
void LogWarn(std::string_view event, std::initializer_list<LogField> fields = {});
void LogError(std::string_view event, std::initializer_list<LogField> fields = {});

}  // namespace tiercache
