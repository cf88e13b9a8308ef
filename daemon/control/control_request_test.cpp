#include "daemon/control/control_request.h"

#include <gtest/gtest.h>

namespace tiercache {
namespace {

std::string ErrorOf(std::string_view line) {
  Result<ControlRequest> r = ParseControlRequest(line);
  if (r.ok()) return "OK";
  return r.status().ToString();
}

TEST(ControlRequestTest, ParsesEveryCommand) {
  EXPECT_EQ(ParseControlRequest(R"({"cmd":"status"})")->command, ControlCommand::kStatus);
  EXPECT_EQ(ParseControlRequest(R"({"cmd":"stats"})")->command, ControlCommand::kStats);
  EXPECT_EQ(ParseControlRequest(R"({"cmd":"reset-health"})")->command,
            ControlCommand::kResetHealth);
  EXPECT_EQ(ParseControlRequest(R"({"cmd":"flush"})")->command, ControlCommand::kFlush);
  EXPECT_EQ(ParseControlRequest(R"( { "cmd" : "stop" } )")->command, ControlCommand::kStop);
  EXPECT_EQ(ParseControlRequest(R"({"cmd":"detach"})")->command, ControlCommand::kDetach);
  EXPECT_EQ(ParseControlRequest(R"({"cmd":"detach","drain":true})").status().message(),
            "unknown field 'drain' for command 'detach'");
}

TEST(ControlRequestTest, ModeWithDrain) {
  Result<ControlRequest> r = ParseControlRequest(R"({"cmd":"mode","mode":"wb","drain":true})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->command, ControlCommand::kMode);
  ASSERT_TRUE(r->mode.has_value());
  EXPECT_EQ(*r->mode, CacheMode::kWriteBack);
  EXPECT_TRUE(r->drain);
}

TEST(ControlRequestTest, ModeWithoutModeIsAQuery) {
  Result<ControlRequest> r = ParseControlRequest(R"({"cmd":"mode"})");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->mode.has_value());
  EXPECT_FALSE(r->drain);
  r = ParseControlRequest(R"({"cmd":"mode","mode":"pt"})");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r->mode, CacheMode::kPassThrough);
  EXPECT_FALSE(r->drain);
}

TEST(ControlRequestTest, MalformedJson) {
  const char* kMalformed = "InvalidArgument: malformed JSON (expected one JSON object per line)";
  EXPECT_EQ(ErrorOf("{\"cmd\":"), kMalformed);
  EXPECT_EQ(ErrorOf("status"), kMalformed);
  EXPECT_EQ(ErrorOf("{\"cmd\":\"status\"} trailing"), kMalformed);
  EXPECT_EQ(ErrorOf("{\"cmd\":\"\xff\"}"), kMalformed);  // invalid UTF-8
  EXPECT_EQ(ErrorOf(""), kMalformed);
}

TEST(ControlRequestTest, DeepNestingIsRejectedWithoutCrashing) {
  std::string deep(60000, '[');
  EXPECT_EQ(ErrorOf(deep), "InvalidArgument: malformed JSON (expected one JSON object per line)");
  std::string balanced = std::string(20000, '[') + std::string(20000, ']');
  EXPECT_EQ(ErrorOf(balanced), "InvalidArgument: request must be a JSON object");
}

TEST(ControlRequestTest, ShapeErrors) {
  EXPECT_EQ(ErrorOf("[1,2]"), "InvalidArgument: request must be a JSON object");
  EXPECT_EQ(ErrorOf("{}"), "InvalidArgument: missing field 'cmd'");
  EXPECT_EQ(ErrorOf(R"({"cmd":7})"), "InvalidArgument: field 'cmd' must be a string");
  EXPECT_EQ(ErrorOf(R"({"cmd":"reboot"})"),
            "InvalidArgument: unknown command 'reboot' (expected status, stats, mode, flush, "
            "stop, detach or reset-health)");
  EXPECT_EQ(ErrorOf(R"({"cmd":"reset-health","force":true})"),
            "InvalidArgument: unknown field 'force' for command 'reset-health'");
  EXPECT_EQ(ErrorOf(R"({"cmd":"status","verbose":true})"),
            "InvalidArgument: unknown field 'verbose' for command 'status'");
  EXPECT_EQ(ErrorOf(R"({"cmd":"flush","mode":"wb"})"),
            "InvalidArgument: unknown field 'mode' for command 'flush'");
}

TEST(ControlRequestTest, ModeFieldErrors) {
  EXPECT_EQ(ErrorOf(R"({"cmd":"mode","mode":"wo"})"),
            "InvalidArgument: unknown mode 'wo' (expected wt, wb, wa or pt)");
  EXPECT_EQ(ErrorOf(R"({"cmd":"mode","mode":1})"),
            "InvalidArgument: field 'mode' must be a string");
  EXPECT_EQ(ErrorOf(R"({"cmd":"mode","mode":"wb","drain":"yes"})"),
            "InvalidArgument: field 'drain' must be true or false");
  EXPECT_EQ(ErrorOf(R"({"cmd":"mode","drain":true})"),
            "InvalidArgument: field 'drain' needs field 'mode'");
  EXPECT_EQ(ErrorOf(R"({"cmd":"mode","mode":"wb","drian":true})"),
            "InvalidArgument: unknown field 'drian' for command 'mode'");
}

}  // namespace
}  // namespace tiercache
