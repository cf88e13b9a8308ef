#include "tools/control_commands.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <thread>

#include "cachelib/common/epoll_event_loop.h"
#include "daemon/control/control_server.h"
#include "daemon/control/testing/fake_control_target.h"
#include "daemon/control/unix_socket.h"
#include "tools/control_client.h"
#include "tools/exit_codes.h"
#include "tools/process_exit.h"
#include "tests/support/temp_dir.h"

namespace tiercache {
namespace {

using testing::FakeControlTarget;

class ControlCommandsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(tmp_.ok());
    dir_ = tmp_.path();
    options_.control = dir_ + "/cache.ctl";
    auto thread = LoopThread::Start("cli-test");
    ASSERT_TRUE(thread.ok());
    thread_ = std::move(thread).value();
  }
  void TearDown() override {
    stop_server();
    thread_.reset();
  }
  void start_server() {
    ControlServerOptions server_options;
    server_options.path = options_.control;
    server_options.progress_interval = Nanos(0);
    thread_->run_sync([&] {
      auto server = ControlServer::Start(thread_->loop(), target_, server_options);
      ASSERT_TRUE(server.ok()) << server.status().ToString();
      server_ = std::move(server).value();
    });
  }
  void stop_server() {
    if (thread_) thread_->run_sync([&] { server_.reset(); });
  }
  // Runs a verb; its stdout and stderr end up in out_ and err_.
  int run(int (*verb)(const CliOptions&, CommandIo&), bool json = false, bool tty = false) {
    out_.str("");
    err_.str("");
    options_.json = json;
    CommandIo io{out_, err_, json, tty};
    return verb(options_, io);
  }

  testing::TempDir tmp_{"tc-cli"};

  std::string dir_;
  CliOptions options_;
  FakeControlTarget target_;
  std::unique_ptr<LoopThread> thread_;
  std::unique_ptr<ControlServer> server_;
  std::ostringstream out_, err_;
};

ControlStatus SampleStatus() {
  ControlStatus s;
  s.pid = 4242;
  s.uptime_seconds = 17;
  s.cache_path = "/dev/nvme0n1p2";
  s.core_path = "/dev/sdb";
  s.export_path = "/run/tiercache/nvme0n1p2.sock";
  s.cache_size = 1ull << 30;
  s.core_size = 4ull << 40;
  for (uint8_t i = 0; i < 16; ++i) s.superblock.uuid[i] = uint8_t(0xa0 + i);
  s.superblock.version = 1;
  s.superblock.line_size = 65536;
  s.superblock.line_count = 16000;
  s.superblock.was_clean_shutdown = true;
  s.policies.replacement = "lru";
  s.policies.sequential.read_cutoff_bytes = 1 << 20;
  s.policies.sequential.write_cutoff_bytes = 1 << 20;
  return s;
}

// 4000 lines used, 16 of them dirty with one sector each (64 KiB).
CacheCounters SixteenDirtyLines() {
  CacheCounters c;
  c.lines_used = 4000;
  c.lines_dirty = 16;
  c.dirty_sectors = 16;
  return c;
}

TEST_F(ControlCommandsTest, StatusForHumans) {
  target_.set_status(SampleStatus());
  target_.set_current_mode(CacheMode::kWriteBack);
  target_.set_counters(SixteenDirtyLines());
  PolicyReport report;
  report.index_bytes = 204800;
  report.cleaning = "target";
  report.oldest_dirty_age_ns = 3'500'000'000;
  report.flush_eta_ns = -1;
  report.cleaning_reason = "ratio";
  target_.set_policy_report(report);
  start_server();
  EXPECT_EQ(run(RunStatus), kExitOk) << err_.str();
  EXPECT_EQ(out_.str(),
            "state:      running (pid 4242, up 17 s)\n"
            "cache:      /dev/nvme0n1p2 (1 GiB)\n"
            "core:       /dev/sdb (4 TiB)\n"
            "export:     /run/tiercache/nvme0n1p2.sock\n"
            "mode:       wb\n"
            "policies:   admission adaptive, replacement lru, sequential cutoff 1 MiB, index 200 "
            "KiB of RAM\n"
            "line size:  64 KiB\n"
            "lines:      16000 total, 4000 used (25.0%), 16 dirty (0.1%)\n"
            "cleaning:   target, 64 KiB dirty, oldest 3.5 s, flush ETA unknown (last: ratio)\n"
            "            dirty target 20%, high 50%, max age 30 s, busy share 10%, idle after 1 "
            "s\n"
            "health:     ok\n"
            "uuid:       a0a1a2a3-a4a5-a6a7-a8a9-aaabacadaeaf\n"
            "format:     version 1, previous shutdown clean\n");
  EXPECT_EQ(err_.str(), "");
}

TEST_F(ControlCommandsTest, StatusSaysWhyCleaningFails) {
  target_.set_status(SampleStatus());
  target_.set_counters(SixteenDirtyLines());
  PolicyReport report;
  report.cleaning = "target";
  report.flush_eta_ns = -1;
  report.cleaning_reason = "idle";
  report.cleaning_error = "NoSpace: pwrite /srv/hdd.img offset 0 length 4096: No space left";
  target_.set_policy_report(report);
  start_server();
  EXPECT_EQ(run(RunStatus), kExitOk) << err_.str();
  EXPECT_NE(out_.str().find("cleaning:   target, 64 KiB dirty, oldest 0.0 s, flush ETA unknown "
                            "(last: error: NoSpace: pwrite /srv/hdd.img offset 0 length 4096: No "
                            "space left)\n"),
            std::string::npos)
      << out_.str();
}

TEST_F(ControlCommandsTest, StatusAsJsonIsTheDaemonReply) {
  ControlStatus s = SampleStatus();
  s.export_path = "";
  target_.set_status(s);
  start_server();
  EXPECT_EQ(run(RunStatus, /*json=*/true), kExitOk);
  EXPECT_EQ(out_.str(),
            R"({"ok":true,"status":{"state":"running","pid":4242,"uptime_seconds":17,)"
            R"("cache":"/dev/nvme0n1p2","core":"/dev/sdb","export":"","mode":"wt",)"
            R"("cache_size":1073741824,"core_size":4398046511104,)"
            R"("uuid":"a0a1a2a3-a4a5-a6a7-a8a9-aaabacadaeaf","format_version":1,)"
            R"("line_size":65536,"line_count":16000,"lines_used":0,"lines_dirty":0,)"
            R"("clean_shutdown_at_open":true,"policies":{"admission":"adaptive",)"
            R"("replacement":"lru","sequential":{"enabled":true,"read_cutoff_bytes":1048576,)"
            R"("write_cutoff_bytes":1048576,"streams":64},"index_bytes":0},)"
            R"("cleaning":{"policy":"","dirty_bytes":0,"oldest_dirty_age_ms":0,"flush_eta_ms":-1,)"
            R"("clean_rate_bytes_per_s":0,"last_reason":"","last_error":"",)"
            R"("dirty_target":0.2,"dirty_high":0.5,)"
            R"("max_dirty_age_ms":30000,"busy_share":0.1,"idle_after_ms":1000},"health":"ok",)"
            R"("ssd_errors":{"read":0,"write":0,"persist":0},"dirty_bytes_at_risk":0}})"
            "\n");
}

TEST_F(ControlCommandsTest, StatsForHumans) {
  CacheCounters c;
  c.read_hits = 750;
  c.read_partial_hits = 50;
  c.read_misses = 200;
  c.write_hits = 10;
  c.write_misses = 30;
  c.read_bypasses = 5;
  c.write_bypasses = 6;
  c.read_hit_bytes = 3ull << 20;
  c.read_miss_bytes = 1ull << 20;
  c.write_hit_bytes = 0;
  c.write_miss_bytes = 8192;
  c.bytes_read_ssd = 3ull << 20;
  c.bytes_written_ssd = 1536 * 1024;
  c.bytes_read_core = 4096;
  c.bytes_written_core = 0;
  c.lines_total = 16000;
  c.lines_used = 900;
  c.lines_dirty = 12;
  c.dirty_sectors = 40;
  c.evictions = 7;
  c.cleaner_writes = 8;
  c.cleaner_write_errors = 2;
  c.cleaned_lines = 9;
  c.fill_skipped_bytes = 2ull << 20;
  c.errors = 1;
  c.flushes = 2;
  c.discards = 3;
  c.write_zeroes = 4;
  target_.set_counters(c);
  PolicyReport report;
  report.admission_counters = {{"admitted", 259}, {"refused", 0}};
  report.replacement_counters = {{"ghost_hits", 5}, {"small_evictions", 3}};
  report.sequential_counters = {{"bypassed_read_bytes", 3ull << 20},
                                {"bypassed_write_bytes", 0},
                                {"bypassed_read_requests", 3},
                                {"bypassed_write_requests", 0},
                                {"repeated_read_bytes", 8ull << 20},
                                {"repeated_read_requests", 8},
                                {"room_read_bytes", 2ull << 20},
                                {"room_read_requests", 2},
                                {"streams_tracked", 7}};
  target_.set_policy_report(report);
  start_server();
  EXPECT_EQ(run(RunStats), kExitOk) << err_.str();
  EXPECT_EQ(out_.str(),
            "reads:      750 hits, 50 partial hits, 200 misses (hit ratio 75.0%)\n"
            "writes:     10 hits, 30 misses (hit ratio 25.0%)\n"
            "byte hits:  3 MiB of 4 MiB read (75.0%), 0 B of 8 KiB written (0.0%)\n"
            "bypassed:   5 reads, 6 writes\n"
            "ssd:        3 MiB read, 1.5 MiB written, 2 MiB of misses not cached (SSD behind)\n"
            "core:       4 KiB read, 0 B written\n"
            "lines:      16000 total, 900 used, 12 dirty (40 dirty sectors), 0 not yet crash-safe\n"
            "cleaning:   7 evictions, 8 cleaner writes (2 failed), 9 lines cleaned\n"
            "requests:   2 flushes, 3 discards, 4 write-zeroes\n"
            "errors:     1\n"
            "ssd errors: 0 read, 0 write, 0 persist; 0 switches to pass-through\n"
            "latency:    hit   no requests\n"
            "            miss  no requests\n"
            "            write no requests\n"
            "            flush no requests\n"
            "admission:  259 admitted, 0 refused\n"
            "replacement: 5 ghost hits, 3 small evictions\n"
            "sequential: bypassed 3 MiB read (3 requests), 0 B written (0 requests); reads past "
            "the cutoff cached: 8 MiB read again (8 requests), 2 MiB while the cache had room (2 "
            "requests); 7 streams tracked\n");
}

TEST_F(ControlCommandsTest, StatsOfPoliciesWithoutCountersAndUnknownSequentialCounters) {
  PolicyReport report;
  report.sequential_counters = {{"bypassed_read_bytes", 4096}, {"streams_tracked", 1},
                                {"stream_merges", 2}};
  target_.set_policy_report(report);
  start_server();
  EXPECT_EQ(run(RunStats), kExitOk) << err_.str();
  std::string out = out_.str();
  EXPECT_EQ(out.substr(out.find("errors:")),
            "errors:     0\n"
            "ssd errors: 0 read, 0 write, 0 persist; 0 switches to pass-through\n"
            "latency:    hit   no requests\n"
            "            miss  no requests\n"
            "            write no requests\n"
            "            flush no requests\n"
            "admission:  no counters\n"
            "replacement: no counters\n"
            "sequential: bypassed 4 KiB read (0 requests), 0 B written (0 requests); reads past "
            "the cutoff cached: 0 B read again (0 requests), 0 B while the cache had room (0 "
            "requests); 1 streams tracked; 2 stream merges\n");
}

TEST_F(ControlCommandsTest, StatsWithoutTrafficShowsDashes) {
  start_server();
  EXPECT_EQ(run(RunStats), kExitOk);
  EXPECT_NE(out_.str().find("0 misses (hit ratio -)"), std::string::npos) << out_.str();
}

TEST_F(ControlCommandsTest, ModeQuerySwitchAndDrain) {
  start_server();
  EXPECT_EQ(run(RunMode), kExitOk);
  EXPECT_EQ(out_.str(), "mode: wt\n");
  options_.new_mode = CacheMode::kWriteBack;
  EXPECT_EQ(run(RunMode), kExitOk);
  EXPECT_EQ(out_.str(), "mode: wt -> wb\n");
  EXPECT_EQ(run(RunMode), kExitOk);
  EXPECT_EQ(out_.str(), "mode: wb (unchanged)\n");
  options_.new_mode = CacheMode::kWriteThrough;
  options_.drain = true;
  EXPECT_EQ(run(RunMode, /*json=*/true), kExitOk);
  EXPECT_EQ(out_.str(), "{\"ok\":true,\"mode\":\"wt\",\"previous_mode\":\"wb\"}\n");
  auto calls = target_.mode_calls();
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[2], std::make_pair(CacheMode::kWriteThrough, true));
}

// Flags apply over the daemon's policies (asked first, not printed); only what a flag set is
// sent. Bad sizes and combinations are usage errors with create's messages, and nothing is sent.
// `cleaning` reports the settings in force; flags change only their knob, over what is in force;
// a combination that does not hold together is a usage error and nothing is sent.
TEST_F(ControlCommandsTest, CleaningQueryAndChange) {
  PolicyReport report;
  report.cleaning = "target";
  target_.set_policy_report(report);
  start_server();
  EXPECT_EQ(run(RunCleaning), kExitOk);
  EXPECT_EQ(out_.str(), "cleaning:   target; dirty target 20%, high 50%, max age 30 s, busy share "
                        "10%, idle after 1 s\n");
  options_.cleaning_change.policy = "nop";
  options_.cleaning_change.max_dirty_age = "12";
  options_.cleaning_change.idle_after = "0.25";
  EXPECT_EQ(run(RunCleaning), kExitOk);
  EXPECT_EQ(out_.str(), "cleaning:   nop; dirty target 20%, high 50%, max age 12 s, busy share "
                        "10%, idle after 0.25 s\n"
                        "            (was: target; dirty target 20%, high 50%, max age 30 s, busy "
                        "share 10%, idle after 1 s)\n");
  options_.cleaning_change = CleaningFlags{};
  options_.cleaning_change.dirty_high = "0.1";
  EXPECT_EQ(run(RunCleaning), kExitUsage);
  EXPECT_EQ(err_.str(), "tiercache cleaning: dirty-target 0.2 must be below dirty-high 0.1\n");
  options_.cleaning_change.dirty_target = "0";
  EXPECT_EQ(run(RunCleaning, /*json=*/true), kExitOk);
  EXPECT_EQ(out_.str(),
            R"({"ok":true,"cleaning":{"policy":"nop","dirty_target":0.0,"dirty_high":0.1,)"
            R"("max_dirty_age_ms":12000,"busy_share":0.1,"idle_after_ms":250},)"
            R"("previous_cleaning":{"policy":"nop","dirty_target":0.2,"dirty_high":0.5,)"
            R"("max_dirty_age_ms":12000,"busy_share":0.1,"idle_after_ms":250}})"
            "\n");
  auto calls = target_.cleaning_calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].first, "nop");
  EXPECT_EQ(calls[0].second.max_dirty_age, std::chrono::seconds(12));
  EXPECT_EQ(calls[0].second.idle_after, std::chrono::milliseconds(250));
  EXPECT_EQ(calls[1].first, "nop");
  EXPECT_EQ(calls[1].second.dirty_target, 0.0);
  EXPECT_EQ(calls[1].second.dirty_high, 0.1);
}

TEST_F(ControlCommandsTest, PolicyQueryAndChange) {
  ControlStatus status;
  status.policies.admission = "always";
  status.policies.replacement = "lru";
  status.policies.sequential.write_cutoff_bytes = 8ull << 20;
  target_.set_status(status);
  start_server();
  EXPECT_EQ(run(RunPolicy), kExitOk);
  EXPECT_EQ(out_.str(),
            "policies:   admission always, replacement lru, sequential cutoff 4 MiB reads, "
            "8 MiB writes\n");
  options_.policy_change.replacement = "clock";
  options_.policy_change.seq_read_cutoff = "1M";
  EXPECT_EQ(run(RunPolicy), kExitOk);
  EXPECT_EQ(out_.str(),
            "policies:   admission always, replacement clock, sequential cutoff 1 MiB reads, "
            "8 MiB writes\n"
            "            (was: admission always, replacement lru, sequential cutoff 4 MiB "
            "reads, 8 MiB writes)\n");
  options_.policy_change = PolicyFlags{};
  options_.policy_change.admission = "adaptive";
  EXPECT_EQ(run(RunPolicy, /*json=*/true), kExitOk);
  const std::string seq =
      R"("sequential":{"enabled":true,"read_cutoff_bytes":1048576,"write_cutoff_bytes":8388608,)"
      R"("streams":64})";
  EXPECT_EQ(out_.str(), R"({"ok":true,"policies":{"admission":"adaptive","replacement":"clock",)" +
                            seq + R"(},"previous_policies":{"admission":"always",)" +
                            R"("replacement":"clock",)" + seq + "}}\n");
  options_.policy_change = PolicyFlags{};
  options_.policy_change.seq_write_cutoff = "0";
  EXPECT_EQ(run(RunPolicy), kExitUsage);
  EXPECT_EQ(err_.str(),
            "tiercache policy: --seq-write-cutoff: 0 (off) applies to both directions only; use "
            "--seq-cutoff 0 to turn sequential bypass off\n");
  auto calls = target_.policy_calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].replacement, "clock");
  EXPECT_EQ(calls[0].sequential.read_cutoff_bytes, 1u << 20);
  EXPECT_EQ(calls[1].admission, "adaptive");
  EXPECT_EQ(calls[1].sequential.read_cutoff_bytes, 1u << 20);
}

TEST_F(ControlCommandsTest, DaemonErrorsExitOne) {
  target_.set_result(Status::Busy("a flush is running"));
  start_server();
  options_.new_mode = CacheMode::kPassThrough;
  EXPECT_EQ(run(RunMode), kExitFailed);
  EXPECT_EQ(out_.str(), "");
  EXPECT_EQ(err_.str(), "tiercache mode: a flush is running (Busy)\n");
  EXPECT_EQ(run(RunMode, /*json=*/true), kExitFailed);
  EXPECT_EQ(out_.str(), "{\"ok\":false,\"error\":\"a flush is running\",\"code\":\"Busy\"}\n");
}

TEST_F(ControlCommandsTest, FlushPrintsProgressLines) {
  target_.set_flush_progress({30, 20, 10, 0});
  start_server();
  EXPECT_EQ(run(RunFlush), kExitOk) << err_.str();
  EXPECT_EQ(out_.str(),
            "flushing: 30 dirty lines left\n"
            "flushing: 20 dirty lines left\n"
            "flushing: 10 dirty lines left\n"
            "flushing: 0 dirty lines left\n"
            "flush complete: no dirty lines left\n");
  EXPECT_EQ(target_.clean_calls(), 1);
}

TEST_F(ControlCommandsTest, FlushOnATerminalRedrawsOneLine) {
  target_.set_flush_progress({2, 1});
  CacheCounters c;
  c.lines_dirty = 5;  // dirtied again while flushing
  target_.set_counters(c);
  start_server();
  EXPECT_EQ(run(RunFlush, /*json=*/false, /*tty=*/true), kExitOk);
  EXPECT_EQ(out_.str(),
            "\rflushing: 2 dirty lines left   \rflushing: 1 dirty lines left   \n"
            "flush complete; 5 lines were dirtied again by writes meanwhile\n");
}

TEST_F(ControlCommandsTest, FlushAsJsonStreamsEveryLine) {
  target_.set_flush_progress({2});
  start_server();
  EXPECT_EQ(run(RunFlush, /*json=*/true), kExitOk);
  EXPECT_EQ(out_.str(),
            "{\"progress\":{\"dirty_lines\":2}}\n"
            "{\"ok\":true,\"dirty_lines\":0}\n");
}

TEST_F(ControlCommandsTest, StopAndDetach) {
  start_server();
  EXPECT_EQ(run(RunStop), kExitOk);
  EXPECT_EQ(out_.str(), "tiercached stopped; the cache was closed cleanly\n");
  EXPECT_EQ(target_.stop_calls(), 1);
  target_.set_flush_progress({1});
  target_.set_detach_bytes(3 << 20);
  EXPECT_EQ(run(RunDetach), kExitOk) << err_.str();
  EXPECT_EQ(out_.str(),
            "flushing: 1 dirty lines left\n"
            "detached: 3 MiB of dirty data written back; the core holds all data and tiercached "
            "stopped\n");
  // One request: the daemon drains and stops by itself.
  EXPECT_EQ(target_.detach_calls(), 1);
  EXPECT_EQ(target_.clean_calls(), 0);
  EXPECT_EQ(target_.stop_calls(), 1);
}

// The daemon lets go of the cache's lock only as it exits, after its reply: stop and detach
// return once the process named by its status is gone (a zombie counts: it exited), so that
// `tiercache stop && tiercached ...` finds the cache free. Here a child that exits 300 ms after it
// started stands for the daemon.
TEST_F(ControlCommandsTest, StopAndDetachReturnOnceTheDaemonExited) {
  start_server();
  for (auto verb : {RunStop, RunDetach}) {
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      usleep(300'000);
      _exit(0);
    }
    ControlStatus status = SampleStatus();
    status.pid = child;
    target_.set_status(status);
    EXPECT_FALSE(ProcessGone(child));
    EXPECT_EQ(run(verb), kExitOk) << err_.str();
    EXPECT_TRUE(ProcessGone(child));
    int wstatus = 0;
    EXPECT_EQ(waitpid(child, &wstatus, 0), child);
  }
  EXPECT_FALSE(ProcessGone(getpid()));
  EXPECT_FALSE(ProcessGone(0));
}

TEST_F(ControlCommandsTest, DetachAsJsonReportsTheBytesWrittenBack) {
  target_.set_flush_progress({2});
  target_.set_detach_bytes(8192);
  start_server();
  EXPECT_EQ(run(RunDetach, /*json=*/true), kExitOk) << err_.str();
  EXPECT_EQ(out_.str(),
            "{\"progress\":{\"dirty_lines\":2}}\n"
            "{\"ok\":true,\"written_back_bytes\":8192}\n");
}

TEST_F(ControlCommandsTest, DetachFailureIsReportedAndExitsOne) {
  target_.set_result(Status::IoError("detach failed, tiercached keeps running in wb: writing "
                                     "dirty data back failed: pwrite /hdd: EIO"));
  start_server();
  EXPECT_EQ(run(RunDetach), kExitFailed);
  EXPECT_EQ(err_.str(),
            "tiercache detach: detach failed, tiercached keeps running in wb: writing dirty data "
            "back failed: pwrite /hdd: EIO (IoError)\n");
  EXPECT_EQ(out_.str(), "");
}

TEST_F(ControlCommandsTest, ResetHealthReportsTheCheck) {
  ControlStatus s = SampleStatus();
  s.health.state = "failed";
  target_.set_status(s);
  target_.set_result(Status::IoError("ssd: SSD check failed, reading the superblock: EIO"));
  start_server();
  EXPECT_EQ(run(RunResetHealth), kExitFailed);
  EXPECT_EQ(err_.str(),
            "tiercache reset-health: ssd: SSD check failed, reading the superblock: EIO "
            "(IoError)\n");
  err_.str("");
  target_.set_result(Status::Ok());
  EXPECT_EQ(run(RunResetHealth), kExitOk) << err_.str();
  EXPECT_EQ(out_.str(), "SSD check passed; health: ok\n");
  EXPECT_EQ(target_.reset_health_calls(), 2);
}

TEST_F(ControlCommandsTest, NoDaemonExitsThreeAndNamesThePath) {
  EXPECT_EQ(run(RunStatus), kExitNoDaemon);
  std::string prefix = "tiercache status: cannot connect to tiercached at " + options_.control +
                       ": no such socket; ";
  EXPECT_EQ(err_.str().substr(0, prefix.size()), prefix) << err_.str();
  EXPECT_EQ(out_.str(), "");
  EXPECT_EQ(run(RunStats, /*json=*/true), kExitNoDaemon);
  EXPECT_EQ(out_.str().substr(0, 60),
            ("{\"ok\":false,\"error\":\"cannot connect to tiercached at " + options_.control)
                .substr(0, 60));
  EXPECT_NE(out_.str().find("\"code\":\"NoDaemon\"}\n"), std::string::npos) << out_.str();
}

TEST_F(ControlCommandsTest, DaemonGoneMidRequestExitsOne) {
  target_.set_completion(FakeControlTarget::Completion::kHeld);
  start_server();
  std::thread killer([&] {
    target_.wait_held();
    stop_server();
  });
  EXPECT_EQ(run(RunFlush), kExitFailed);
  killer.join();
  EXPECT_EQ(err_.str(), "tiercache flush: tiercached closed the connection at " +
                            options_.control + " before answering\n");
  target_.release(Status::Ok());
}

// A server that answers every line with `reply`, to test the client against a broken daemon.
std::string CallRawServer(const std::string& path, const std::string& reply) {
  Result<ListeningSocket> listening = ListenUnix(path);
  EXPECT_TRUE(listening.ok());
  std::thread server([&] {
    int fd = -1;
    while (fd < 0) fd = accept(listening->fd, nullptr, nullptr);  // non-blocking listener
    char buf[256];
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    (void)n;
    ssize_t w = send(fd, reply.data(), reply.size(), MSG_NOSIGNAL);
    (void)w;
    ::close(fd);
  });
  Result<std::unique_ptr<ControlClient>> client = ControlClient::Connect(path);
  std::string result = "connect failed";
  if (client.ok()) {
    Result<ControlJson> r = (*client)->call(ControlJson{{"cmd", "status"}});
    result = r.ok() ? r->dump() : r.status().ToString();
  }
  server.join();
  ::close(listening->fd);
  unlink(path.c_str());
  return result;
}

TEST_F(ControlCommandsTest, ClientRejectsBrokenReplies) {
  std::string path = options_.control;
  EXPECT_EQ(CallRawServer(path, "garbage\n"),
            "IoError: unexpected reply from " + path + ": garbage");
  EXPECT_EQ(CallRawServer(path, "{\"status\":1}\n"),
            "IoError: reply from " + path + " lacks \"ok\": {\"status\":1}");
  EXPECT_EQ(CallRawServer(path, "{\"progress\":{}}\n{\"ok\":false}\n"), "{\"ok\":false}");
  EXPECT_EQ(CallRawServer(path, "{\"ok\":true"),
            "IoError: tiercached closed the connection at " + path + " before answering");
}

}  // namespace
}  // namespace tiercache
