#include "tools/cli_options.h"

#include <gtest/gtest.h>

#include <algorithm>
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

TEST(CliOptionsTest, CreatePolicyFlags) {
  Parse p({"create", "--cache", "/a", "--core", "/b", "--admission", "always", "--replacement",
           "lru", "--seq-cutoff", "1M"});
  ASSERT_TRUE(p.ran()) << p.err.str();
  EXPECT_EQ(p.options().policies.admission, "always");
  EXPECT_EQ(p.options().policies.replacement, "lru");
  EXPECT_TRUE(p.options().policies.sequential.enabled);
  EXPECT_EQ(p.options().policies.sequential.read_cutoff_bytes, 1u << 20);
  EXPECT_EQ(p.options().policies.sequential.write_cutoff_bytes, 1u << 20);
  EXPECT_EQ(p.options().policies.sequential.streams, 64u);

  Parse defaults({"create", "--cache", "/a", "--core", "/b"});
  ASSERT_TRUE(defaults.ran());
  EXPECT_EQ(defaults.options().policies, PolicyOptions{});

  Parse split({"create", "--cache", "/a", "--core", "/b", "--seq-cutoff", "8M",
               "--seq-write-cutoff", "64K", "--replacement", "sieve"});
  ASSERT_TRUE(split.ran()) << split.err.str();
  EXPECT_EQ(split.options().policies.replacement, "sieve");
  EXPECT_EQ(split.options().policies.sequential.read_cutoff_bytes, 8u << 20);
  EXPECT_EQ(split.options().policies.sequential.write_cutoff_bytes, 64u << 10);

  Parse read_only({"create", "--cache", "/a", "--core", "/b", "--seq-read-cutoff", "12K"});
  ASSERT_TRUE(read_only.ran()) << read_only.err.str();
  EXPECT_EQ(read_only.options().policies.sequential.read_cutoff_bytes, 12u << 10);
  EXPECT_EQ(read_only.options().policies.sequential.write_cutoff_bytes, 4u << 20);
}

TEST(CliOptionsTest, SeqCutoffZeroTurnsSequentialBypassOff) {
  Parse off({"create", "--cache", "/a", "--core", "/b", "--seq-cutoff", "0"});
  ASSERT_TRUE(off.ran()) << off.err.str();
  EXPECT_FALSE(off.options().policies.sequential.enabled);
  EXPECT_EQ(off.options().policies.sequential.read_cutoff_bytes, 0u);
  EXPECT_EQ(off.options().policies.sequential.write_cutoff_bytes, 0u);
  Parse both({"create", "--cache", "/a", "--core", "/b", "--seq-read-cutoff", "0",
              "--seq-write-cutoff", "0"});
  ASSERT_TRUE(both.ran()) << both.err.str();
  EXPECT_FALSE(both.options().policies.sequential.enabled);

  Parse one({"create", "--cache", "/a", "--core", "/b", "--seq-write-cutoff", "0"});
  EXPECT_FALSE(one.ran());
  EXPECT_EQ(one.result.exit_code, kExitUsage);
  EXPECT_EQ(one.err.str(),
            "tiercache create: --seq-write-cutoff: 0 (off) applies to both directions only; use "
            "--seq-cutoff 0 to turn sequential bypass off\n");
  Parse reopened({"create", "--cache", "/a", "--core", "/b", "--seq-cutoff", "0",
                  "--seq-read-cutoff", "1M"});
  EXPECT_EQ(reopened.result.exit_code, kExitUsage);
  EXPECT_EQ(reopened.err.str(),
            "tiercache create: --seq-cutoff: 0 (off) applies to both directions only; use "
            "--seq-cutoff 0 to turn sequential bypass off\n");
}

TEST(CliOptionsTest, PolicyFlagErrorsAreUsageErrorsQuotingThePolicies) {
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"--admission", "nhitt"},
       "tiercache create: --admission: unknown admission policy 'nhitt' (always, nhit, adaptive)\n"},
      {{"--replacement", "arc"},
       "tiercache create: --replacement: unknown replacement policy 'arc' (lru, clock, s3fifo, "
       "sieve, epoch-lru)\n"},
      {{"--replacement", "a-name-longer-than-sixteen-bytes"},
       "tiercache create: --replacement: unknown replacement policy "
       "'a-name-longer-than-sixteen-bytes' (lru, clock, s3fifo, sieve, "
       "epoch-lru)\n"},
      {{"--seq-cutoff", "1000"},
       "tiercache create: --seq-cutoff: read_cutoff_bytes must be a multiple of 4096 and >= "
       "4096\n"},
      {{"--seq-write-cutoff", "6K"},
       "tiercache create: --seq-write-cutoff: write_cutoff_bytes must be a multiple of 4096 and "
       ">= 4096\n"},
      {{"--seq-read-cutoff", "1X"},
       "tiercache create: --seq-read-cutoff: invalid size '1X': unknown suffix 'X' (use K, M, G "
       "or T; powers of 1024)\n"},
  };
  for (const auto& [flags, message] : cases) {
    std::vector<std::string> args = {"create", "--cache", "/a", "--core", "/b"};
    args.insert(args.end(), flags.begin(), flags.end());
    Parse p(args);
    EXPECT_FALSE(p.ran()) << flags[0];
    EXPECT_EQ(p.result.exit_code, kExitUsage) << flags[0];
    EXPECT_EQ(p.err.str(), message);
  }
  Parse not_for_status({"status", "--replacement", "lru"});
  EXPECT_EQ(not_for_status.result.exit_code, kExitUsage);
}

TEST(CliOptionsTest, PolicyQueryAndChangeFlags) {
  Parse query({"policy", "--cache", "/dev/nvme0n1", "--json"});
  ASSERT_TRUE(query.ran()) << query.err.str();
  EXPECT_EQ(query.options().verb, Verb::kPolicy);
  EXPECT_FALSE(query.options().policy_change.any());
  Parse change({"policy", "--replacement", "s3fifo", "--admission", "nhit", "--seq-cutoff", "0"});
  ASSERT_TRUE(change.ran()) << change.err.str();
  const PolicyFlags& flags = change.options().policy_change;
  EXPECT_EQ(flags.replacement, "s3fifo");
  EXPECT_EQ(flags.admission, "nhit");
  EXPECT_EQ(flags.seq_cutoff, "0");
  EXPECT_TRUE(flags.any_sequential());
  Parse seq_only({"policy", "--seq-write-cutoff", "2M"});
  ASSERT_TRUE(seq_only.ran());
  EXPECT_TRUE(seq_only.options().policy_change.any());
  EXPECT_TRUE(seq_only.options().policy_change.replacement.empty());
}

// Unknown names are refused before any daemon is asked, with create's messages.
TEST(CliOptionsTest, PolicyRejectsUnknownNames) {
  Parse replacement({"policy", "--replacement", "arc"});
  EXPECT_FALSE(replacement.ran());
  EXPECT_EQ(replacement.result.exit_code, kExitUsage);
  EXPECT_EQ(replacement.err.str(),
            "tiercache policy: --replacement: unknown replacement policy 'arc' (lru, clock, "
            "s3fifo, sieve, epoch-lru)\n");
  Parse admission({"policy", "--admission", "nhitt"});
  EXPECT_EQ(admission.result.exit_code, kExitUsage);
  EXPECT_EQ(admission.err.str(),
            "tiercache policy: --admission: unknown admission policy 'nhitt' (always, nhit, "
            "adaptive)\n");
  Parse mode_flag({"policy", "--mode", "wb"});
  EXPECT_EQ(mode_flag.result.exit_code, kExitUsage);
}

// Each cleaning flag is checked as tiercached checks its own, before any daemon is asked.
TEST(CliOptionsTest, CleaningFlags) {
  Parse query({"cleaning", "--cache", "/dev/nvme0n1"});
  ASSERT_TRUE(query.ran()) << query.err.str();
  EXPECT_EQ(query.options().verb, Verb::kCleaning);
  EXPECT_FALSE(query.options().cleaning_change.any());
  Parse change({"cleaning", "--policy", "nop", "--dirty-target", "0.1", "--dirty-high", "0.3",
                "--max-dirty-age", "10", "--busy-share", "0.5", "--idle-after", "2"});
  ASSERT_TRUE(change.ran()) << change.err.str();
  const CleaningFlags& flags = change.options().cleaning_change;
  EXPECT_TRUE(flags.any());
  EXPECT_EQ(flags.policy, "nop");
  EXPECT_EQ(flags.dirty_target, "0.1");
  EXPECT_EQ(flags.dirty_high, "0.3");
  EXPECT_EQ(flags.max_dirty_age, "10");
  EXPECT_EQ(flags.busy_share, "0.5");
  EXPECT_EQ(flags.idle_after, "2");
  for (auto [args, message] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--policy", "alru"}, "--policy: unknown cleaning policy 'alru' (known: target, nop)"},
           {{"--busy-share", "0"}, "--busy-share: 0 is not in 0.001..1"},
           {{"--max-dirty-age", "soon"}, "--max-dirty-age: 'soon' is not a number"},
           {{"--idle-after", "0"}, "--idle-after: 0 is not in 0.01..86400"}}) {
    args.insert(args.begin(), "cleaning");
    Parse bad(args);
    EXPECT_FALSE(bad.ran());
    EXPECT_EQ(bad.result.exit_code, kExitUsage);
    EXPECT_EQ(bad.err.str(), "tiercache cleaning: " + message + "\n");
  }
}

TEST(CliOptionsTest, CreateRejectsUnknownMode) {
  Parse p({"create", "--cache", "/a", "--core", "/b", "--mode", "wo"});
  EXPECT_FALSE(p.ran());
  EXPECT_EQ(p.result.exit_code, kExitUsage);
}

TEST(CliOptionsTest, ModeSwitchQueryAndDrain) {
  Parse sw({"mode", "wt", "--drain"});
  ASSERT_TRUE(sw.ran()) << sw.err.str();
  EXPECT_EQ(sw.options().verb, Verb::kMode);
  ASSERT_TRUE(sw.options().new_mode.has_value());
  EXPECT_EQ(*sw.options().new_mode, CacheMode::kWriteThrough);
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
  Parse drain_wb({"mode", "wb", "--drain"});
  EXPECT_EQ(drain_wb.result.exit_code, kExitUsage);
  EXPECT_EQ(drain_wb.err.str(),
            "tiercache mode: --drain writes dirty data back for a mode without it: not with wb\n");
}

// Parse errors are said as every other error, "tiercache <verb>: <message>" on one line, and an
// unknown verb is named with the verbs there are.
TEST(CliOptionsTest, ParseErrorsNameTheVerb) {
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"mode", "writeback"}, "tiercache mode: writeback not in {wt,wb,wa,pt}\n"},
      {{"create", "--cache", "/a", "--core", "/b", "--mode", "writeback"},
       "tiercache create: --mode: writeback not in {wt,wb,wa,pt}\n"},
      {{"stats", "--json", "--prometheus"}, "tiercache stats: --json excludes --prometheus\n"},
      {{"status", "extra"}, "tiercache status: The following argument was not expected: extra\n"},
      {{"config", "check"}, "tiercache config check: file is required\n"},
      {{"frobnicate"},
       "tiercache: unknown verb 'frobnicate' (create, status, stats, top, mode, policy, cleaning, "
       "flush, stop, check, detach, attach, reset-health, bench, sim, config)\n"},
      {{}, "tiercache: a verb is required (create, status, stats, top, mode, policy, cleaning, "
           "flush, stop, check, detach, attach, reset-health, bench, sim, config)\n"},
  };
  for (const auto& [args, said] : cases) {
    Parse p(args);
    EXPECT_FALSE(p.ran());
    EXPECT_EQ(p.result.exit_code, kExitUsage);
    EXPECT_EQ(p.err.str(), said);
    // Nothing on stdout, but with --json (below).
    if (std::find(args.begin(), args.end(), "--json") == args.end()) EXPECT_EQ(p.out.str(), "");
  }
  // With --json, also as the error object every failure prints on stdout.
  Parse json({"mode", "writeback", "--json"});
  EXPECT_EQ(json.result.exit_code, kExitUsage);
  EXPECT_EQ(json.err.str(), "tiercache mode: writeback not in {wt,wb,wa,pt}\n");
  EXPECT_EQ(json.out.str(),
            R"({"ok":false,"error":"writeback not in {wt,wb,wa,pt}","code":"InvalidArgument"})"
            "\n");
  Parse late({"create", "--cache", "/a", "--core", "/b", "--discard-dirty", "--json"});
  EXPECT_EQ(late.out.str(),
            R"({"ok":false,"error":"--discard-dirty needs --force","code":"InvalidArgument"})"
            "\n");
  Parse version({"--version"});
  EXPECT_EQ(version.result.exit_code, kExitOk);
  EXPECT_EQ(version.out.str().rfind("tiercache 0.", 0), 0u) << version.out.str();  // project()
  Parse help({"mode", "--help"});
  EXPECT_EQ(help.result.exit_code, kExitOk);
  EXPECT_NE(help.out.str().find("Usage:"), std::string::npos) << help.out.str();
}

TEST(CliOptionsTest, ControlVerbs) {
  const std::pair<const char*, Verb> verbs[] = {{"status", Verb::kStatus},
                                                {"stats", Verb::kStats},
                                                {"flush", Verb::kFlush},
                                                {"stop", Verb::kStop},
                                                {"detach", Verb::kDetach},
                                                {"reset-health", Verb::kResetHealth}};
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

TEST(CliOptionsTest, StatsPrometheusExcludesJsonAndOtherVerbs) {
  Parse p({"stats", "--prometheus"});
  ASSERT_TRUE(p.ran()) << p.err.str();
  EXPECT_EQ(p.options().verb, Verb::kStats);
  EXPECT_TRUE(p.options().prometheus);
  EXPECT_FALSE(p.options().json);
  EXPECT_FALSE(Parse({"stats"}).options().prometheus);
  EXPECT_EQ(Parse({"stats", "--prometheus", "--json"}).result.exit_code, kExitUsage);
  EXPECT_EQ(Parse({"status", "--prometheus"}).result.exit_code, kExitUsage);
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

TEST(CliOptionsTest, AttachNeedsCacheAndCoreAndTakesForce) {
  Parse p({"attach", "--cache", "/dev/nvme0n1p2", "--core", "/srv/core.img"});
  ASSERT_TRUE(p.ran()) << p.err.str();
  EXPECT_EQ(p.options().verb, Verb::kAttach);
  EXPECT_EQ(p.options().cache, "/dev/nvme0n1p2");
  EXPECT_EQ(p.options().core, "/srv/core.img");
  EXPECT_FALSE(p.options().force);
  Parse forced({"attach", "--cache", "/a", "--core", "/b", "--force", "--json"});
  ASSERT_TRUE(forced.ran()) << forced.err.str();
  EXPECT_TRUE(forced.options().force);
  EXPECT_TRUE(forced.options().json);
  Parse no_core({"attach", "--cache", "/a"});
  EXPECT_EQ(no_core.result.exit_code, kExitUsage);
  Parse discard({"attach", "--cache", "/a", "--core", "/b", "--discard-dirty"});
  EXPECT_EQ(discard.result.exit_code, kExitUsage);
}

TEST(CliOptionsTest, DiscardDirtyNeedsForce) {
  Parse both({"create", "--cache", "/a", "--core", "/b", "--force", "--discard-dirty"});
  ASSERT_TRUE(both.ran()) << both.err.str();
  EXPECT_TRUE(both.options().force);
  EXPECT_TRUE(both.options().discard_dirty);
  Parse alone({"create", "--cache", "/a", "--core", "/b", "--discard-dirty"});
  EXPECT_EQ(alone.result.exit_code, kExitUsage);
  EXPECT_EQ(alone.err.str(), "tiercache create: --discard-dirty needs --force\n");
  Parse neither({"create", "--cache", "/a", "--core", "/b"});
  ASSERT_TRUE(neither.ran());
  EXPECT_FALSE(neither.options().discard_dirty);
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
                           "detach", "attach", "reset-health", "bench", "policy",
                           "Exit codes"}) {
    EXPECT_NE(p.out.str().find(verb), std::string::npos) << verb;
  }
  Parse verb_help({"create", "--help"});
  EXPECT_EQ(verb_help.result.exit_code, kExitOk);
  EXPECT_NE(verb_help.out.str().find("--line-size"), std::string::npos);
  for (const char* flag : {"--admission", "--replacement", "--seq-cutoff", "--seq-read-cutoff",
                           "--seq-write-cutoff",
                           "lru, clock, s3fifo, sieve, epoch-lru; default epoch-lru"}) {
    EXPECT_NE(verb_help.out.str().find(flag), std::string::npos) << flag;
  }
}

}  // namespace
}  // namespace tiercache
