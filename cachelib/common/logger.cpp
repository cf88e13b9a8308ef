#include "cachelib/common/logger.h"

#include <chrono>
#include <cstdio>
#include <ctime>

namespace tiercache {
namespace {

bool NeedsQuotes(std::string_view value) {
  if (value.empty()) return true;
  for (char c : value) {
    if (c == ' ' || c == '=' || c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20 ||
        c == 0x7f) {
      return true;
    }
  }
  return false;
}

void AppendValue(std::string_view value, std::string* out) {
  if (!NeedsQuotes(value)) {
    out->append(value);
    return;
  }
  *out += '"';
  for (char c : value) {
    if (c == '"' || c == '\\') {
      *out += '\\';
      *out += c;
    } else if (c == '\n') {
      *out += "\\n";
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned char>(c));
      *out += hex;
    } else {
      *out += c;
    }
  }
  *out += '"';
}

}  // namespace

const char* LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug: return "debug";
    case LogLevel::kInfo: return "info";
    case LogLevel::kWarn: return "warn";
    case LogLevel::kError: return "error";
  }
  return "info";
}

std::optional<LogLevel> ParseLogLevel(std::string_view name) {
  for (LogLevel level : {LogLevel::kDebug, LogLevel::kInfo, LogLevel::kWarn, LogLevel::kError}) {
    if (name == LogLevelName(level)) return level;
  }
  return std::nullopt;
}

Logger& Logger::instance() {
  static Logger* logger = new Logger();  // never destroyed: threads may log during exit
  return *logger;
}

void Logger::set_level(LogLevel level) {
  std::lock_guard lock(mu_);
  level_ = level;
}

bool Logger::enabled(LogLevel level) const {
  std::lock_guard lock(mu_);
  return level >= level_;
}

void Logger::set_sink(Sink sink) {
  std::lock_guard lock(mu_);
  sink_ = std::move(sink);
}

void Logger::set_time_source(TimeSource time) {
  std::lock_guard lock(mu_);
  time_ = std::move(time);
}

void Logger::log(LogLevel level, std::string_view event, std::initializer_list<LogField> fields) {
  std::lock_guard lock(mu_);
  if (level < level_) return;
  const std::string line = FormatLine(time_ ? time_() : WallClockTimestamp(), level, event, fields);
  if (sink_) return sink_(line);
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

std::string Logger::FormatLine(std::string_view ts, LogLevel level, std::string_view event,
                               std::initializer_list<LogField> fields) {
  std::string line = "ts=";
  AppendValue(ts, &line);
  line += " level=";
  line += LogLevelName(level);
  line += " event=";
  AppendValue(event, &line);
  for (const LogField& field : fields) {
    line += ' ';
    line.append(field.key);
    line += '=';
    AppendValue(field.value, &line);
  }
  line += '\n';
  return line;
}

std::string Logger::WallClockTimestamp() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()) % 1000;
  std::tm utc;
  gmtime_r(&seconds, &utc);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, int(ms.count()));
  return buf;
}

void LogDebug(std::string_view event, std::initializer_list<LogField> fields) {
  Logger::instance().log(LogLevel::kDebug, event, fields);
}
void LogInfo(std::string_view event, std::initializer_list<LogField> fields) {
  Logger::instance().log(LogLevel::kInfo, event, fields);
}
void LogWarn(std::string_view event, std::initializer_list<LogField> fields) {
  Logger::instance().log(LogLevel::kWarn, event, fields);
}
void LogError(std::string_view event, std::initializer_list<LogField> fields) {
  Logger::instance().log(LogLevel::kError, event, fields);
}

}  // namespace tiercache
