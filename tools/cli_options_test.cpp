#include "tools/cli_options.h"

#include <gtest/gtest.h>

#include <sstream>

#include "tools/exit_codes.h"

namespace tiercache {
namespace {

struct Parse {
  explicit Parse(std::vector<std::string> args) {
    args.insert(args.begin(), "tiercache");
    std::vector<const char*> argv;
    for (const auto& a : args) argv.push_back(a.c_str());
    result = ParseCommandLine(int(argv.size()), argv.data(), out, err);
  }
  const CliOptions& options() const { return *result.options; }
  bool ran() const { return result.options.has_value(); }

  std::ostringstream out, err;
  ParsedCommandLine result;
};

TEST(CliOptionsTest, CreateWithEveryOption) {
  Parse p({"create", "--cache", "/dev/nvme0n1p2", "--core", "/dev/sdb", "--line-size", "128K",
           "--mode", "wb", "--force", "--json", "--control", "/tmp/x.ctl"});
  ASSERT_TRUE(p.ran()) << p.err.str();
  EXPECT_EQ(p.options().verb, Verb::kCreate);
  EXPECT_EQ(p.options().cache, "/dev/nvme0n1p2");
  EXPECT_EQ(p.options().core, "/dev/sdb");
  EXPECT_EQ(p.options().line_size, 131072u);
  EXPECT_EQ(p.options().create_mode, CacheMode::kWriteBack);
  EXPECT_TRUE(p.options().force);
  EXPECT_TRUE(p.options().json);
  EXPECT_EQ(p.options().control, "/tmp/x.ctl");
}

TEST(CliOptionsTest, CreateDefaults) {
  Parse p({"create", "--cache=/a", "--core=/b"});
  ASSERT_TRUE(p.ran()) << p.err.str();
  EXPECT_EQ(p.options().line_size, 4096u);
  EXPECT_EQ(p.options().create_mode, CacheMode::kWriteThrough);
  EXPECT_FALSE(p.options().force);
  EXPECT_FALSE(p.options().json);
  EXPECT_EQ(p.options().control, "");
}

TEST(CliOptionsTest, CreateNeedsBothDevices) {
  Parse p({"create", "--cache", "/a"});
  EXPECT_FALSE(p.ran());
  EXPECT_EQ(p.result.exit_code, kExitUsage);
  EXPECT_NE(p.err.str().find("--core is required"), std::string::npos) << p.err.str();
}

TEST(CliOptionsTest, LineSizeErrorsAreUsageErrors) {
  Parse bad({"create", "--cache", "/a", "--core", "/b", "--line-size", "64Q"});
  EXPECT_FALSE(bad.ran());
  EXPECT_EQ(bad.result.exit_code, kExitUsage);
  EXPECT_EQ(bad.err.str(),
            "tiercache create: --line-size: invalid size '64Q': unknown suffix 'Q' (use K, M, G "
            "or T; powers of 1024)\n");
  Parse odd({"create", "--cache", "/a", "--core", "/b", "--line-size", "3K"});
  EXPECT_EQ(odd.result.exit_code, kExitUsage);
  EXPECT_EQ(odd.err.str(),
            "tiercache create: --line-size: line_size 3072 must be a power of two between 4096 "
            "and 1048576 bytes\n");
  Parse huge({"create", "--cache", "/a", "--core", "/b", "--line-size", "8G"});
  EXPECT_EQ(huge.result.exit_code, kExitUsage);
  EXPECT_EQ(huge.err.str(), "tiercache create: --line-size: 8589934592 bytes is too large\n");
  Parse small({"create", "--cache", "/a", "--core", "/b", "--line-size", "2048"});
  EXPECT_EQ(small.result.exit_code, kExitUsage);
  Parse largest({"create", "--cache", "/a", "--core", "/b", "--line-size", "1M"});
  ASSERT_TRUE(largest.ran());
  EXPECT_EQ(largest.options().line_size, 1u << 20);
}

TEST(CliOptionsTest, CreateRejectsUnknownMode) {
  Parse p({"create", "--cache", "/a", "--core", "/b", "--mode", "wo"});
  EXPECT_FALSE(p.ran());
  EXPECT_EQ(p.result.exit_code, kExitUsage);
}

TEST(CliOptionsTest, ModeSwitchQueryAndDrain) {
  Parse sw({"mode", "wb", "--drain"});
  ASSERT_TRUE(sw.ran()) << sw.err.str();
  EXPECT_EQ(sw.options().verb, Verb::kMode);
  ASSERT_TRUE(sw.options().new_mode.has_value());
  EXPECT_EQ(*sw.options().new_mode, CacheMode::kWriteBack);
  EXPECT_TRUE(sw.options().drain);

  Parse query({"mode", "--cache", "/dev/nvme0n1"});
  ASSERT_TRUE(query.ran());
  EXPECT_FALSE(query.options().new_mode.has_value());
  EXPECT_EQ(query.options().cache, "/dev/nvme0n1");

  Parse bad({"mode", "fast"});
  EXPECT_EQ(bad.result.exit_code, kExitUsage);
  Parse drain_only({"mode", "--drain"});
  EXPECT_EQ(drain_only.result.exit_code, kExitUsage);
  EXPECT_EQ(drain_only.err.str(), "tiercache mode: --drain needs a mode (wt, wb, wa or pt)\n");
}

TEST(CliOptionsTest, ControlVerbs) {
  const std::pair<const char*, Verb> verbs[] = {{"status", Verb::kStatus},
                                                {"stats", Verb::kStats},
                                                {"flush", Verb::kFlush},
                                                {"stop", Verb::kStop},
                                                {"detach", Verb::kDetach}};
  for (const auto& [name, verb] : verbs) {
    Parse p({name, "--control", "/run/tiercache/x.ctl", "--json"});
    ASSERT_TRUE(p.ran()) << name << ": " << p.err.str();
    EXPECT_EQ(p.options().verb, verb) << name;
    EXPECT_EQ(p.options().control, "/run/tiercache/x.ctl");
    EXPECT_TRUE(p.options().json);
    Parse extra({name, "--force"});
    EXPECT_EQ(extra.result.exit_code, kExitUsage) << name;
  }
}

TEST(CliOptionsTest, CheckTakesAnOptionalCore) {
  Parse p({"check", "--cache", "/dev/nvme0n1p2"});
  ASSERT_TRUE(p.ran()) << p.err.str();
  EXPECT_EQ(p.options().verb, Verb::kCheck);
  EXPECT_EQ(p.options().core, "");
  Parse with_core({"check", "--cache", "/a", "--core", "/b"});
  ASSERT_TRUE(with_core.ran());
  EXPECT_EQ(with_core.options().core, "/b");
  Parse missing({"check"});
  EXPECT_EQ(missing.result.exit_code, kExitUsage);
}

TEST(CliOptionsTest, BenchPassesEverythingThrough) {
  Parse p({"bench", "--workload", "desktop-trace", "--help", "-v", "--control", "x"});
  ASSERT_TRUE(p.ran()) << p.err.str();
  EXPECT_EQ(p.options().verb, Verb::kBench);
  EXPECT_EQ(p.options().bench_args,
            (std::vector<std::string>{"--workload", "desktop-trace", "--help", "-v", "--control",
                                      "x"}));
  Parse none({"bench"});
  ASSERT_TRUE(none.ran());
  EXPECT_TRUE(none.options().bench_args.empty());
}

TEST(CliOptionsTest, NoVerbOrUnknownVerbIsAUsageError) {
  Parse none({});
  EXPECT_EQ(none.result.exit_code, kExitUsage);
  Parse unknown({"format"});
  EXPECT_EQ(unknown.result.exit_code, kExitUsage);
}

TEST(CliOptionsTest, HelpExitsZero) {
  Parse p({"--help"});
  EXPECT_FALSE(p.ran());
  EXPECT_EQ(p.result.exit_code, kExitOk);
  for (const char* verb : {"create", "status", "stats", "mode", "flush", "stop", "check",
                           "detach", "bench", "Exit codes"}) {
    EXPECT_NE(p.out.str().find(verb), std::string::npos) << verb;
  }
  Parse verb_help({"create", "--help"});
  EXPECT_EQ(verb_help.result.exit_code, kExitOk);
  EXPECT_NE(verb_help.out.str().find("--line-size"), std::string::npos);
}

}  // namespace
}  // namespace tiercache
