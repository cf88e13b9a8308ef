#include "daemon/tiercached/config_file.h"

#include <gtest/gtest.h>

#include <fstream>

namespace tiercache {
namespace {

class ConfigFileTest : public ::testing::Test {
 protected:
  // Writes `text` to a file and loads it into config_; returns the errors.
  std::vector<std::string> Load(const std::string& text) {
    std::ofstream(path_) << text;
    return LoadConfigFile(path_, &config_);
  }
  std::string At(int line, const std::string& why) const {
    return path_ + ":" + std::to_string(line) + ": " + why;
  }

  const std::string path_ = ::testing::TempDir() + "config_file_test.conf";
  DaemonConfig config_;
};

TEST_F(ConfigFileTest, EveryKindOfValue) {
  EXPECT_EQ(Load("# /etc/tiercache/data.conf\n"
                 "cache = \"/dev/sdb\"\n"
                 "core = \"/dev/sda\"\n"
                 "listen = \"127.0.0.1:10809\"\n"
                 "threads = 4\n"
                 "poll-us = 200\n"
                 "handshake-timeout = 2.5\n"
                 "ssd-error-window = 30\n"
                 "ublk-id = 3\n"
                 "seq-cutoff = \"4M\"\n"
                 "commit-acks = true\n"
                 "foreground = false\n"),
            std::vector<std::string>{});
  EXPECT_EQ(config_.cache_path, "/dev/sdb");
  EXPECT_EQ(config_.core_path, "/dev/sda");
  EXPECT_EQ(config_.tcp_listen, "127.0.0.1:10809");
  EXPECT_EQ(config_.threads, 4u);
  EXPECT_EQ(config_.poll_us, 200u);
  EXPECT_EQ(config_.handshake_timeout_s, 2.5);
  EXPECT_EQ(config_.ssd_error_window_s, 30.0);
  EXPECT_EQ(config_.ublk_id, 3);
  EXPECT_EQ(config_.seq_cutoff_bytes, std::optional<uint64_t>(4u << 20));
  EXPECT_TRUE(config_.commit_acks);
  EXPECT_FALSE(config_.foreground);
  // Untouched options keep their defaults.
  EXPECT_EQ(config_.max_connections, 64u);
  EXPECT_EQ(config_.socket_path, "");
}

TEST_F(ConfigFileTest, SizeAsAByteCount) {
  EXPECT_EQ(Load("seq-cutoff = 1048576\n"), std::vector<std::string>{});
  EXPECT_EQ(config_.seq_cutoff_bytes, std::optional<uint64_t>(1u << 20));
}

TEST_F(ConfigFileTest, UnknownKeysWithSuggestions) {
  EXPECT_EQ(Load("cache = \"ssd.img\"\n"
                 "thread = 4\n"
                 "poll_us = 10\n"
                 "--ublk = true\n"
                 "colour = \"blue\"\n"),
            (std::vector<std::string>{
                At(2, "unknown key 'thread' (did you mean 'threads'?)"),
                At(3, "unknown key 'poll_us' (did you mean 'poll-us'?)"),
                At(4, "unknown key '--ublk' (did you mean 'ublk'?)"),
                At(5, "unknown key 'colour'"),
            }));
}

TEST_F(ConfigFileTest, WrongTypes) {
  EXPECT_EQ(Load("threads = \"4\"\n"
                 "ublk = 1\n"
                 "cache = 7\n"
                 "handshake-timeout = true\n"
                 "seq-cutoff = 4.5\n"
                 "core = [\"a\", \"b\"]\n"),
            (std::vector<std::string>{
                At(1, "threads: expected an integer, not a string"),
                At(2, "ublk: expected true or false, not an integer"),
                At(3, "cache: expected a string, not an integer"),
                At(4, "handshake-timeout: expected a number, not a boolean"),
                At(5, "seq-cutoff: expected a size such as \"4M\" or a number of bytes, not a "
                      "floating-point number"),
                At(6, "core: expected a string, not an array"),
            }));
}

TEST_F(ConfigFileTest, BadValuesAsTheFlagWouldReportThem) {
  EXPECT_EQ(Load("poll-us = 2000000\n"
                 "threads = -1\n"
                 "handshake-timeout = 0.0001\n"
                 "seq-cutoff = \"4Q\"\n"
                 "replacement = \"nope\"\n"
                 "depth = 0\n"),
            (std::vector<std::string>{
                At(1, "poll-us: 2000000 is not in 0..1000000"),
                At(2, "threads: '-1' is not a whole number >= 0"),
                At(3, "handshake-timeout: 0.0001 is not in 0.001..3600"),
                At(4, "seq-cutoff: invalid size '4Q': unknown suffix 'Q' (use K, M, G or T; "
                      "powers of 1024)"),
                At(5, "replacement: unknown replacement policy 'nope' (lru, clock, s3fifo, sieve, "
                      "epoch-lru)"),
                At(6, "depth: 0 is not in 1..4096"),
            }));
}

// toml++'s own words, after the line: the first syntax error is the only one reported.
TEST_F(ConfigFileTest, SyntaxErrorStopsAtItsLine) {
  EXPECT_EQ(Load("cache = \"ssd.img\"\n\nthreads = \nthread = 4\n"),
            std::vector<std::string>{
                At(3, "Error while parsing key-value pair: expected value, saw '\\n'")});
}

TEST_F(ConfigFileTest, DuplicateKeyIsASyntaxError) {
  EXPECT_EQ(Load("threads = 1\nthreads = 2\n"),
            std::vector<std::string>{At(2,
                                        "Error while parsing key-value pair: cannot redefine "
                                        "existing integer 'threads'")});
}

TEST_F(ConfigFileTest, SectionsAreNotOptions) {
  EXPECT_EQ(Load("[nbd]\nthreads = 4\n"),
            std::vector<std::string>{At(1, "unknown key 'nbd'")});
}

TEST_F(ConfigFileTest, MissingFile) {
  EXPECT_EQ(LoadConfigFile("/nonexistent/x.conf", &config_),
            std::vector<std::string>{
                "/nonexistent/x.conf: cannot read: No such file or directory"});
}

}  // namespace
}  // namespace tiercache
