#include "cachelib/common/logger.h"

#include <gtest/gtest.h>

#include <vector>

namespace tiercache {
namespace {

TEST(LoggerTest, FormatsKeyValuePairs) {
  EXPECT_EQ(Logger::FormatLine("2026-12-01T21:40:00.123Z", LogLevel::kInfo, "start",
                               {{"cache", "ssd.img"}, {"core", "/dev/sdb"}}),
            "ts=2026-12-01T21:40:00.123Z level=info event=start cache=ssd.img core=/dev/sdb\n");
}

TEST(LoggerTest, QuotesValuesThatNeedIt) {
  EXPECT_EQ(Logger::FormatLine("T", LogLevel::kError, "io_error",
                               {{"error", "read failed: EIO"},
                                {"empty", ""},
                                {"q", "say \"hi\"\n"},
                                {"eq", "a=b"},
                                {"back", "c:\\x"},
                                {"tab", "a\tb"}}),
            "ts=T level=error event=io_error error=\"read failed: EIO\" empty=\"\" "
            "q=\"say \\\"hi\\\"\\n\" eq=\"a=b\" back=\"c:\\\\x\" tab=\"a\\x09b\"\n");
}

TEST(LoggerTest, LevelsFilterAndParse) {
  std::vector<std::string> lines;
  Logger& logger = Logger::instance();
  logger.set_sink([&lines](std::string_view line) { lines.emplace_back(line); });
  logger.set_time_source([] { return std::string("T"); });
  logger.set_level(LogLevel::kWarn);
  LogInfo("dropped");
  LogWarn("kept", {{"n", "1"}});
  LogError("kept");
  logger.set_level(LogLevel::kDebug);
  LogDebug("debug_kept");
  logger.set_level(LogLevel::kInfo);
  logger.set_sink(nullptr);
  logger.set_time_source(nullptr);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "ts=T level=warn event=kept n=1\n");
  EXPECT_EQ(lines[1], "ts=T level=error event=kept\n");
  EXPECT_EQ(lines[2], "ts=T level=debug event=debug_kept\n");
  EXPECT_EQ(ParseLogLevel("warn"), LogLevel::kWarn);
  EXPECT_EQ(ParseLogLevel("debug"), LogLevel::kDebug);
  EXPECT_EQ(ParseLogLevel("WARN"), std::nullopt);
  EXPECT_EQ(ParseLogLevel("warning"), std::nullopt);
}

TEST(LoggerTest, WallClockTimestampHasTheIsoShape) {
  const std::string ts = Logger::WallClockTimestamp();
  ASSERT_EQ(ts.size(), 24u);
  EXPECT_EQ(ts[4], '-');
  EXPECT_EQ(ts[10], 'T');
  EXPECT_EQ(ts[19], '.');
  EXPECT_EQ(ts[23], 'Z');
}

}  // namespace
}  // namespace tiercache
