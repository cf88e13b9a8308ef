#include "daemon/tiercached/daemon_option.h"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <set>

#include "daemon/control/control_paths.h"
#include "daemon/tiercached/daemon_config.h"

namespace tiercache {
namespace {

// ParseDaemonConfig over `args` (argv[0] added).
Result<DaemonConfig> Parse(std::vector<std::string> args) {
  args.insert(args.begin(), "tiercached");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return ParseDaemonConfig(int(argv.size()), argv.data());
}

std::string ErrorOf(std::vector<std::string> args) {
  Result<DaemonConfig> c = Parse(std::move(args));
  return c.ok() ? "OK" : c.status().message();
}

std::string WriteFile(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

TEST(DaemonOptionTest, NamesAreUniqueFlagNames) {
  std::set<std::string> names;
  for (const DaemonOption& o : DaemonOptions()) {
    EXPECT_TRUE(names.insert(o.name).second) << o.name;
    EXPECT_EQ(o.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz-"), std::string::npos);
    EXPECT_FALSE(o.help.empty()) << o.name;
  }
  // One per DaemonConfig field but log_level and io_backend, parsed from their names.
  EXPECT_EQ(names.size(), 42u);
  EXPECT_EQ(FindDaemonOption("config"), nullptr);  // names the file; not an option in it
}

TEST(DaemonOptionTest, Suggestions) {
  EXPECT_EQ(SuggestDaemonOption("thread"), "threads");
  EXPECT_EQ(SuggestDaemonOption("seq_cutoff"), "seq-cutoff");
  EXPECT_EQ(SuggestDaemonOption("pollus"), "poll-us");
  EXPECT_EQ(SuggestDaemonOption("colour"), "");
  EXPECT_EQ(SuggestDaemonOption("x"), "");  // 2 edits from nothing useful
}

TEST(DaemonOptionTest, ApplyChecksEachKind) {
  DaemonConfig c;
  auto apply = [&](const char* name, const char* text) {
    return ApplyDaemonOption(*FindDaemonOption(name), text, &c).ToString();
  };
  EXPECT_EQ(apply("threads", "8"), "OK");
  EXPECT_EQ(c.threads, 8u);
  EXPECT_EQ(apply("threads", "8x"), "InvalidArgument: '8x' is not a whole number >= 0");
  EXPECT_EQ(apply("threads", "+8"), "InvalidArgument: '+8' is not a whole number >= 0");
  EXPECT_EQ(apply("threads", "99999999999"), "InvalidArgument: '99999999999' is too large");
  // More loops than that ran out of file descriptors at start ("timerfd_create: Too many open
  // files") instead of a usage error.
  EXPECT_EQ(apply("threads", "257"), "InvalidArgument: 257 is not in 0..256");
  EXPECT_EQ(apply("threads", "0"), "OK");
  EXPECT_EQ(apply("ublk-id", "-1"), "OK");
  EXPECT_EQ(c.ublk_id, -1);
  EXPECT_EQ(apply("ublk", "yes"), "InvalidArgument: 'yes' is not true or false");
  EXPECT_EQ(apply("ublk", "true"), "OK");
  EXPECT_TRUE(c.ublk);
  EXPECT_EQ(apply("ssd-error-window", "1e-4"), "InvalidArgument: 0.0001 is not in 0.001..86400");
  EXPECT_EQ(apply("ssd-error-window", "nan"), "InvalidArgument: nan is not in 0.001..86400");
  EXPECT_EQ(apply("seq-cutoff", "0"), "OK");
  EXPECT_EQ(c.seq_cutoff_bytes, std::optional<uint64_t>(0));
  EXPECT_EQ(apply("seq-cutoff", "5000"),
            "InvalidArgument: read_cutoff_bytes must be a multiple of 4096 and >= 4096");
  // A bad --listen is a usage error of the flag, not a failed start after the cache opened.
  EXPECT_EQ(apply("listen", "127.0.0.1:99999"),
            "InvalidArgument: expected HOST:PORT with a PORT of 0-65535, got '127.0.0.1:99999'");
  EXPECT_EQ(apply("listen", "nocolon"), "InvalidArgument: expected HOST:PORT, got 'nocolon'");
  EXPECT_EQ(apply("listen", "[::1]:10809"), "OK");
  EXPECT_EQ(c.tcp_listen, "[::1]:10809");
  EXPECT_EQ(apply("stream-readahead", "2M"), "OK");
  EXPECT_EQ(c.stream_readahead_bytes, std::optional<uint64_t>(2u << 20));
  EXPECT_EQ(apply("stream-readahead", "2X"),
            "InvalidArgument: invalid size '2X': unknown suffix 'X' (use K, M, G or T; powers of "
            "1024)");
  EXPECT_EQ(apply("fill-backlog", "16M"), "OK");
  EXPECT_EQ(c.fill_backlog_bytes, std::optional<uint64_t>(16u << 20));
  EXPECT_EQ(apply("fill-backlog", "1K"), "InvalidArgument: the fill backlog must be at least 4K");
  EXPECT_EQ(apply("journal-steps", "7/8,15/16"), "OK");
  EXPECT_EQ(c.journal_steps, "7/8,15/16");
  EXPECT_EQ(apply("journal-steps", "7/8"),
            "InvalidArgument: '7/8' is not ONE/N,FOUR/N (e.g. 13/16,7/8)");
  EXPECT_EQ(apply("journal-steps", "15/16,7/8"),
            "InvalidArgument: one_step_above 15/16 and four_steps_above 7/8 must satisfy "
            "one_step_above <= four_steps_above < 1");
  EXPECT_EQ(c.socket_io, "ring");  // the default
  EXPECT_EQ(apply("socket-io", "epoll"), "OK");
  EXPECT_EQ(c.socket_io, "epoll");
  EXPECT_EQ(apply("socket-io", "uring"), "InvalidArgument: 'uring' is not ring or epoll");
  EXPECT_EQ(apply("cleaning", "nop"), "OK");
  EXPECT_EQ(c.cleaning, "nop");
  EXPECT_EQ(apply("cleaning", "alru"),
            "InvalidArgument: unknown cleaning policy 'alru' (known: target, nop)");
  EXPECT_EQ(apply("dirty-high", "0"), "InvalidArgument: 0 is not in 0.001..1");
  EXPECT_EQ(apply("dirty-target", "1.5"), "InvalidArgument: 1.5 is not in 0..1");
  EXPECT_EQ(apply("busy-share", "0"), "InvalidArgument: 0 is not in 0.001..1");
  EXPECT_EQ(apply("max-dirty-age", "0.5"), "InvalidArgument: 0.5 is not in 1..86400");
  EXPECT_EQ(apply("idle-after", "0"), "InvalidArgument: 0 is not in 0.01..86400");
  EXPECT_EQ(apply("admission", "nope"),
            "InvalidArgument: unknown admission policy 'nope' (always, nhit, adaptive)");
}

TEST(DaemonConfigTest, FlagsAloneAsBefore) {
  Result<DaemonConfig> c = Parse({"--cache", "ssd.img", "-f", "--threads", "2", "--ublk",
                                  "--seq-cutoff", "1M"});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->cache_path, "ssd.img");
  EXPECT_TRUE(c->foreground);
  EXPECT_EQ(c->threads, 2u);
  EXPECT_TRUE(c->ublk);
  EXPECT_TRUE(c->commit_acks);  // implied by --ublk
  EXPECT_EQ(c->seq_cutoff_bytes, std::optional<uint64_t>(1u << 20));
  EXPECT_EQ(ErrorOf({}), "--cache is required (or `cache` in the --config file)");
  EXPECT_EQ(ErrorOf({"--cache", "x", "--poll-us", "2000000"}),
            "--poll-us: 2000000 is not in 0..1000000");
  EXPECT_EQ(ErrorOf({"--cache", "x", "--replacement", "nope"}),
            "--replacement: unknown replacement policy 'nope' (lru, clock, s3fifo, sieve, "
            "epoch-lru)");
  EXPECT_EQ(ErrorOf({"--cache", "x", "--colour"}),
            "The following argument was not expected: --colour");
}

TEST(DaemonConfigTest, FlagsOverrideTheFile) {
  const std::string path = WriteFile("daemon_option_test.conf",
                                     "cache = \"from-file.img\"\nthreads = 4\nublk = true\n"
                                     "poll-us = 50\n");
  Result<DaemonConfig> c = Parse({"--config", path, "--threads", "8", "--ublk=false"});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->cache_path, "from-file.img");
  EXPECT_EQ(c->threads, 8u);
  EXPECT_FALSE(c->ublk);
  EXPECT_FALSE(c->commit_acks);
  EXPECT_EQ(c->poll_us, 50u);
  EXPECT_EQ(c->socket_path, DefaultExportPath("from-file.img"));
}

TEST(DaemonConfigTest, CleaningKnobsBecomeCleaningOptions) {
  Result<DaemonConfig> c =
      Parse({"--cache", "x", "--cleaning", "nop", "--dirty-target", "0.05", "--dirty-high", "0.1",
             "--max-dirty-age", "12", "--busy-share", "0.25", "--idle-after", "0.5"});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->cleaning, "nop");
  Result<CleaningOptions> o = CleaningOptionsFor(*c);
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->dirty_target, 0.05);
  EXPECT_EQ(o->dirty_high, 0.1);
  EXPECT_EQ(o->max_dirty_age, std::chrono::seconds(12));
  EXPECT_EQ(o->age_margin, std::chrono::seconds(2));  // a sixth of the age bound
  EXPECT_EQ(o->busy_share, 0.25);
  EXPECT_EQ(o->idle_after, std::chrono::milliseconds(500));
  EXPECT_EQ(o->busy_batch_blocks, CleaningOptions{}.busy_batch_blocks);  // not an option
  // Without the flags: CleaningOptions' defaults, the margin included.
  c = Parse({"--cache", "x"});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->cleaning, "target");
  o = CleaningOptionsFor(*c);
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  const CleaningOptions defaults;
  EXPECT_EQ(o->dirty_target, defaults.dirty_target);
  EXPECT_EQ(o->dirty_high, defaults.dirty_high);
  EXPECT_EQ(o->max_dirty_age, defaults.max_dirty_age);
  EXPECT_EQ(o->age_margin, defaults.age_margin);
  EXPECT_EQ(o->busy_share, defaults.busy_share);
  EXPECT_EQ(o->idle_after, defaults.idle_after);
}

TEST(DaemonConfigTest, DirtyTargetMustBeBelowDirtyHighWhateverTheOrder) {
  EXPECT_EQ(ErrorOf({"--cache", "x", "--dirty-target", "0.6"}),
            "dirty-target 0.6 must be below dirty-high 0.5");
  EXPECT_EQ(ErrorOf({"--cache", "x", "--dirty-high", "0.2"}),
            "dirty-target 0.2 must be below dirty-high 0.2");
  // Checked once every option is set: a file may lower dirty-high before dirty-target.
  const std::string path = WriteFile("daemon_option_cleaning.conf",
                                     "cache = \"x\"\ndirty-high = 0.1\ndirty-target = 0.05\n");
  Result<DaemonConfig> c = Parse({"--config", path});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->dirty_high, 0.1);
  EXPECT_EQ(c->dirty_target, 0.05);
  EXPECT_EQ(ErrorOf({"--config", path, "--dirty-target", "0.1"}),
            "dirty-target 0.1 must be below dirty-high 0.1");
}

TEST(DaemonConfigTest, FileErrorsOnePerLine) {
  const std::string path =
      WriteFile("daemon_option_bad.conf", "cache = \"x\"\nthread = 4\npoll-us = -3\n");
  EXPECT_EQ(ErrorOf({"--config", path}),
            path + ":2: unknown key 'thread' (did you mean 'threads'?)\n" + path +
                ":3: poll-us: '-3' is not a whole number >= 0");
}

}  // namespace
}  // namespace tiercache
