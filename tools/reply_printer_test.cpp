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
            "format:     version 0, previous shutdown unclean (dirty and crash-safe clean lines "
            "kept)\n");
  std::ostringstream not_object;
  PrintStats(ControlJson::array(), not_object);
  EXPECT_NE(not_object.str().find("errors:     0\n"), std::string::npos);
}

TEST(ReplyPrinterTest, StatsShowLatencyPercentilesPerPath) {
  LatencySnapshot hit;
  hit.buckets[0] = 2;  // <= 10 us
  hit.buckets[3] = 2;  // (50, 100 us]
  hit.sum_ns = 160'000;
  LatencySnapshot flush;
  flush.buckets[9] = 1000;  // (5, 10 ms]
  ControlJson stats = ControlJson::object();
  CacheLatency latency;
  latency.hit = hit;
  latency.flush = flush;
  stats["latency"] = LatencyToJson(latency);
  std::ostringstream out;
  PrintStats(stats, out);
  const std::string text = out.str();
  EXPECT_NE(text.find("latency:    hit   p50 10 us, p99 99 us, p99.9 100 us (4 requests)\n"
                      "            miss  no requests\n"
                      "            write no requests\n"
                      "            flush p50 7.50 ms, p99 9.95 ms, p99.9 9.99 ms (1000 requests)\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("latency: {"), std::string::npos) << text;
  EXPECT_EQ(FormatLatency(std::chrono::seconds(2)), "2.00 s");
}

TEST(ReplyPrinterTest, DescribePolicies) {
  EXPECT_EQ(DescribePolicies(ControlJson::parse(
                R"({"admission":"always","replacement":"clock","sequential":{"enabled":true,)"
                R"("read_cutoff_bytes":1048576,"write_cutoff_bytes":1048576,"streams":64},)"
                R"("index_bytes":1572864})")),
            "admission always, replacement clock, sequential cutoff 1 MiB, index 1.5 MiB of RAM");
  EXPECT_EQ(DescribePolicies(ControlJson::parse(
                R"({"admission":"always","replacement":"lru","sequential":{"enabled":true,)"
                R"("read_cutoff_bytes":65536,"write_cutoff_bytes":8388608}})")),
            "admission always, replacement lru, sequential cutoff 64 KiB reads, 8 MiB writes");
  EXPECT_EQ(DescribePolicies(ControlJson::parse(
                R"({"admission":"always","replacement":"sieve","sequential":{"enabled":false,)"
                R"("read_cutoff_bytes":0,"write_cutoff_bytes":0}})")),
            "admission always, replacement sieve, sequential cutoff off");
  EXPECT_EQ(DescribePolicies(ControlJson::parse(R"({"admission":7,"sequential":[]})")),
            "admission ?, replacement ?, sequential cutoff 0 B");
  EXPECT_EQ(DescribePolicies(ControlJson::array()),
            "admission ?, replacement ?, sequential cutoff 0 B");
}

TEST(ReplyPrinterTest, StatusShowsThePoliciesAfterTheMode) {
  ControlJson status = ControlJson::parse(
      R"({"mode":"wt","policies":{"admission":"always","replacement":"s3fifo",)"
      R"("sequential":{"enabled":true,"read_cutoff_bytes":4194304,)"
      R"("write_cutoff_bytes":4194304,"streams":64},"index_bytes":13107200}})");
  std::ostringstream out;
  PrintStatus(status, out);
  EXPECT_NE(out.str().find("mode:       wt\n"
                           "policies:   admission always, replacement s3fifo, sequential cutoff "
                           "4 MiB, index 12.5 MiB of RAM\n"
                           "line size:  0 B\n"),
            std::string::npos) << out.str();
  std::ostringstream mistyped;
  PrintStatus(ControlJson::parse(R"({"mode":"wt","policies":"lru"})"), mistyped);
  EXPECT_EQ(mistyped.str().find("policies:"), std::string::npos) << mistyped.str();
}

TEST(ReplyPrinterTest, StatsByteHitRatioAndMistypedPolicyCounters) {
  ControlJson stats = ControlJson::parse(
      R"({"read_hit_bytes":1024,"read_miss_bytes":3072,"write_miss_bytes":512,)"
      R"("policy_counters":{"admission":[1],"replacement":{"hand_moves":"x"},"sequential":3}})");
  std::ostringstream out;
  PrintStats(stats, out);
  std::string text = out.str();
  EXPECT_NE(text.find("byte hits:  1 KiB of 4 KiB read (25.0%), 0 B of 512 B written (0.0%)\n"),
            std::string::npos) << text;
  EXPECT_EQ(text.substr(text.find("errors:")),
            "errors:     0\n"
            "ssd errors: 0 read, 0 write, 0 persist; 0 switches to pass-through\n"
            "admission:  no counters\n"
            "replacement: 0 hand moves\n"
            "sequential: bypassed 0 B read (0 requests), 0 B written (0 requests); reads past the "
            "cutoff cached: 0 B read again (0 requests), 0 B while the cache had room (0 "
            "requests); 0 streams tracked\n");
}

// A status line that only a daemon sending its field has: `text` is in the status printed from
// `json`, and no `label` line is printed from a status without the field.
void ExpectLineOnlyWhenSent(const std::string& json, const std::string& text,
                            const std::string& label) {
  std::ostringstream out;
  PrintStatus(ControlJson::parse(json), out);
  EXPECT_NE(out.str().find(text), std::string::npos) << out.str();
  std::ostringstream old_daemon;
  PrintStatus(ControlJson::parse(R"({"mode":"wt"})"), old_daemon);
  EXPECT_EQ(old_daemon.str().find(label), std::string::npos);
}

TEST(ReplyPrinterTest, StatusShowsTheSsdHealthInOneLine) {
  std::ostringstream ok;
  PrintStatus(ControlJson::parse(R"({"mode":"wt","health":"ok","ssd_errors":{"read":0,)"
                                 R"("write":0,"persist":0},"dirty_bytes_at_risk":0})"),
              ok);
  EXPECT_NE(ok.str().find("health:     ok\n"), std::string::npos) << ok.str();
  std::ostringstream failed;
  PrintStatus(ControlJson::parse(R"({"mode":"wb","health":"failed","ssd_errors":{"read":3,)"
                                 R"("write":2,"persist":1},"dirty_bytes_at_risk":8192})"),
              failed);
  EXPECT_NE(failed.str().find("health:     failed (SSD errors: 3 read, 2 write, 1 persist; "
                              "8 KiB dirty data at risk); running as pass-through until "
                              "`tiercache reset-health`\n"),
            std::string::npos) << failed.str();
  std::ostringstream old_daemon;
  PrintStatus(ControlJson::parse(R"({"mode":"wt"})"), old_daemon);
  EXPECT_EQ(old_daemon.str().find("health:"), std::string::npos);
}

TEST(ReplyPrinterTest, StatusShowsEachDevicesBackendAndMeanQueueDepth) {
  ExpectLineOnlyWhenSent(
      R"({"mode":"wt","export":"/run/x.sock","io":{"cache":{"backend":"io_uring",)"
      R"("rounds":4,"submit_calls":4,"ops":50,"in_flight_sum":57,"merged":30},)"
      R"("core":{"backend":"libaio","rounds":0,"submit_calls":0,"ops":0,"in_flight_sum":0}}})",
      "export:     /run/x.sock\n"
      "io:         cache io_uring (mean queue depth 14.2, 30 merged), core libaio (mean "
      "queue depth -)\n",
      "io:");
}

TEST(ReplyPrinterTest, StatusShowsTheRecordJournal) {
  ExpectLineOnlyWhenSent(
      R"({"mode":"wt","export":"","metadata":{"journal_rounds":340,"steps":1,)"
      R"("checkpoints":0,"journal_blocks_used":12,"journal_blocks":162}})",
      "metadata:   journal 12 of 162 blocks; 340 journal rounds, 1 step, 0 checkpoints since "
      "open\n",
      "metadata:");
}

TEST(ReplyPrinterTest, StatusShowsHowTheSocketsMoveBytes) {
  std::ostringstream out;
  PrintStatus(ControlJson::parse(R"({"mode":"wt","export":"/run/x.sock","export_io":"io_uring"})"),
              out);
  EXPECT_NE(out.str().find("export:     /run/x.sock (sockets on io_uring)\n"), std::string::npos)
      << out.str();
  std::ostringstream unexported;
  PrintStatus(ControlJson::parse(R"({"mode":"wt","export":"","export_io":"epoll"})"), unexported);
  EXPECT_NE(unexported.str().find("export:     none\n"), std::string::npos) << unexported.str();
}

TEST(ReplyPrinterTest, Percentages) {
  EXPECT_EQ(Percent(1, 3), "33.3%");
  EXPECT_EQ(Percent(0, 0), "-");
  EXPECT_EQ(Percent(5, 5), "100.0%");
}

}  // namespace
}  // namespace tiercache
