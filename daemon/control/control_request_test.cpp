#include "daemon/control/control_request.h"

#include <gtest/gtest.h>

#include <chrono>

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

TEST(ControlRequestTest, PolicyWithoutFieldsIsAQuery) {
  Result<ControlRequest> r = ParseControlRequest(R"({"cmd":"policy"})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->command, ControlCommand::kPolicy);
  EXPECT_FALSE(r->changes_policies());
}

// Each field replaces the one in force; names are checked when applied, not here.
TEST(ControlRequestTest, PolicyFields) {
  Result<ControlRequest> r = ParseControlRequest(
      R"({"cmd":"policy","replacement":"clock","sequential":{"enabled":true,)"
      R"("read_cutoff_bytes":1048576,"write_cutoff_bytes":2097152,"streams":32}})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->changes_policies());
  EXPECT_FALSE(r->policies.admission.has_value());
  EXPECT_EQ(r->policies.replacement, "clock");
  EXPECT_EQ(r->policies.sequential,
            (SequentialOptions{.read_cutoff_bytes = 1 << 20, .write_cutoff_bytes = 2 << 20,
                               .streams = 32}));
  r = ParseControlRequest(R"({"cmd":"policy","admission":"nope"})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->policies.admission, "nope");
}

TEST(ControlRequestTest, PolicyFieldErrors) {
  EXPECT_EQ(ErrorOf(R"({"cmd":"policy","replacement":1})"),
            "InvalidArgument: field 'replacement' must be a string");
  const std::string needs =
      "InvalidArgument: field 'sequential' must be an object with enabled, read_cutoff_bytes, "
      "write_cutoff_bytes and streams";
  EXPECT_EQ(ErrorOf(R"({"cmd":"policy","sequential":{"enabled":false}})"), needs);
  EXPECT_EQ(ErrorOf(R"({"cmd":"policy","sequential":{"enabled":1,"read_cutoff_bytes":0,)"
                    R"("write_cutoff_bytes":0,"streams":64}})"),
            needs);
  EXPECT_EQ(ErrorOf(R"({"cmd":"policy","sequential":{"enabled":true,"read_cutoff_bytes":-1,)"
                    R"("write_cutoff_bytes":0,"streams":64}})"),
            needs);
  EXPECT_EQ(ErrorOf(R"({"cmd":"policy","mode":"wb"})"),
            "InvalidArgument: unknown field 'mode' for command 'policy'");
}

TEST(ControlRequestTest, CleaningFieldsOverTheOnesInForce) {
  Result<ControlRequest> r = ParseControlRequest(R"({"cmd":"cleaning"})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->command, ControlCommand::kCleaning);
  EXPECT_FALSE(r->cleaning.any());
  r = ParseControlRequest(
      R"({"cmd":"cleaning","policy":"nop","dirty_target":0.05,"dirty_high":0.1,)"
      R"("busy_share":0.25,"max_dirty_age_ms":12000,"idle_after_ms":500})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->cleaning.any());
  EXPECT_EQ(r->cleaning.policy, "nop");
  const CleaningOptions o = r->cleaning.apply(CleaningOptions{});
  EXPECT_EQ(o.dirty_target, 0.05);
  EXPECT_EQ(o.dirty_high, 0.1);
  EXPECT_EQ(o.busy_share, 0.25);
  EXPECT_EQ(o.max_dirty_age, std::chrono::seconds(12));
  EXPECT_EQ(o.age_margin, std::chrono::seconds(2));
  EXPECT_EQ(o.idle_after, std::chrono::milliseconds(500));
  // A field left out keeps the base's value.
  r = ParseControlRequest(R"({"cmd":"cleaning","busy_share":1})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  CleaningOptions base;
  base.dirty_target = 0.3;
  const CleaningOptions kept = r->cleaning.apply(base);
  EXPECT_EQ(kept.busy_share, 1.0);
  EXPECT_EQ(kept.dirty_target, 0.3);
  EXPECT_EQ(kept.max_dirty_age, base.max_dirty_age);
  EXPECT_EQ(kept.age_margin, base.age_margin);
  EXPECT_FALSE(r->cleaning.policy.has_value());
}

TEST(ControlRequestTest, CleaningFieldErrors) {
  EXPECT_EQ(ErrorOf(R"({"cmd":"cleaning","policy":2})"),
            "InvalidArgument: field 'policy' must be a string");
  EXPECT_EQ(ErrorOf(R"({"cmd":"cleaning","dirty_high":"0.5"})"),
            "InvalidArgument: field 'dirty_high' must be a number");
  EXPECT_EQ(ErrorOf(R"({"cmd":"cleaning","idle_after_ms":-1})"),
            "InvalidArgument: field 'idle_after_ms' must be a whole number of milliseconds");
  EXPECT_EQ(ErrorOf(R"({"cmd":"cleaning","max_dirty_age_ms":1.5})"),
            "InvalidArgument: field 'max_dirty_age_ms' must be a whole number of milliseconds");
  EXPECT_EQ(ErrorOf(R"({"cmd":"cleaning","max_dirty_age":1})"),
            "InvalidArgument: unknown field 'max_dirty_age' for command 'cleaning'");
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
            "stop, detach, reset-health, policy or cleaning)");
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
