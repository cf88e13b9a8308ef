#include "tools/reply_printer.h"

#include <gtest/gtest.h>

#include <sstream>

namespace tiercache {
namespace {

TEST(ReplyPrinterTest, UnknownCountersAreListedAtTheEnd) {
  ControlJson stats = ControlJson::parse(R"({"read_hits":1,"read_misses":1,"promotions":7})");
  std::ostringstream out;
  PrintStats(stats, out);
  std::string text = out.str();
  EXPECT_NE(text.find("reads:      1 hits, 0 partial hits, 1 misses (hit ratio 50.0%)\n"),
            std::string::npos) << text;
  EXPECT_EQ(text.substr(text.size() - 15), "\npromotions: 7\n");
}

TEST(ReplyPrinterTest, MistypedFieldsPrintAsDefaults) {
  ControlJson status = ControlJson::parse(
      R"({"state":3,"pid":"x","line_count":-5,"clean_shutdown_at_open":"yes","mode":"wb"})");
  std::ostringstream out;
  PrintStatus(status, out);
  EXPECT_EQ(out.str(),
            "state:      ? (pid 0, up 0 s)\n"
            "cache:      ? (0 B)\n"
            "core:       ? (0 B)\n"
            "export:     none\n"
            "mode:       wb\n"
            "line size:  0 B\n"
            "lines:      0 total, 0 used (-), 0 dirty (-)\n"
            "uuid:       ?\n"
            "format:     version 0, previous shutdown unclean (dirty lines recovered)\n");
  std::ostringstream not_object;
  PrintStats(ControlJson::array(), not_object);
  EXPECT_NE(not_object.str().find("errors:     0\n"), std::string::npos);
}

TEST(ReplyPrinterTest, Percentages) {
  EXPECT_EQ(Percent(1, 3), "33.3%");
  EXPECT_EQ(Percent(0, 0), "-");
  EXPECT_EQ(Percent(5, 5), "100.0%");
}

}  // namespace
}  // namespace tiercache
