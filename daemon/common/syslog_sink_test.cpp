#include "daemon/common/syslog_sink.h"

#include <gtest/gtest.h>
#include <syslog.h>

#include "cachelib/common/logger.h"

namespace tiercache {
namespace {

std::string Line(LogLevel level) {
  return Logger::FormatLine("2026-12-07T01:00:00.000Z", level, "start", {{"cache", "a b"}});
}

TEST(SyslogSinkTest, EachLevelHasItsPriority) {
  EXPECT_EQ(SyslogPriorityOf(Line(LogLevel::kDebug)), LOG_DEBUG);
  EXPECT_EQ(SyslogPriorityOf(Line(LogLevel::kInfo)), LOG_INFO);
  EXPECT_EQ(SyslogPriorityOf(Line(LogLevel::kWarn)), LOG_WARNING);
  EXPECT_EQ(SyslogPriorityOf(Line(LogLevel::kError)), LOG_ERR);
}

TEST(SyslogSinkTest, ALineWithoutAKnownLevelIsInfo) {
  EXPECT_EQ(SyslogPriorityOf("ts=x event=start"), LOG_INFO);
  EXPECT_EQ(SyslogPriorityOf("ts=x level=loud event=start"), LOG_INFO);
  EXPECT_EQ(SyslogPriorityOf(""), LOG_INFO);
  // A field value that merely contains the text is not the level.
  EXPECT_EQ(SyslogPriorityOf("ts=x level=warn event=e note=\"a level=error\""), LOG_WARNING);
}

}  // namespace
}  // namespace tiercache
