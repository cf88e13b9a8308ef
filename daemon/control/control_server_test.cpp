#include "daemon/control/control_server.h"

#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "cachelib/common/epoll_event_loop.h"
#include "daemon/control/testing/fake_control_target.h"
#include "daemon/control/unix_socket.h"
#include "tests/support/temp_dir.h"

namespace tiercache {
namespace {

using testing::FakeControlTarget;

// A blocking line client. Reads time out after 60 s so that a bug fails the test instead of
// hanging it (the timeout is a guard, not an assertion).
class LineClient {
 public:
  explicit LineClient(const std::string& path) {
    Result<int> fd = ConnectUnix(path);
    EXPECT_TRUE(fd.ok()) << fd.status().ToString();
    fd_ = fd.ok() ? *fd : -1;
    timeval tv{60, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  ~LineClient() { close_fd(); }
  void close_fd() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  void send(const std::string& data) {
    size_t done = 0;
    while (done < data.size()) {
      ssize_t n = ::send(fd_, data.data() + done, data.size() - done, MSG_NOSIGNAL);
      if (n <= 0) break;  // the server may close early (oversized line)
      done += size_t(n);
    }
  }
  void shutdown_write() { ::shutdown(fd_, SHUT_WR); }
  // The next line without '\n'; "<EOF>" at end of stream, "<ERR>" on error or timeout.
  std::string line() {
    for (;;) {
      size_t nl = buf_.find('\n');
      if (nl != std::string::npos) {
        std::string out = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        return out;
      }
      char tmp[4096];
      ssize_t n = ::recv(fd_, tmp, sizeof tmp, 0);
      if (n == 0) return "<EOF>";
      if (n < 0) return errno == ECONNRESET ? "<EOF>" : "<ERR>";
      buf_.append(tmp, size_t(n));
    }
  }
  std::string call(const std::string& request) {
    send(request + "\n");
    return line();
  }

 private:
  int fd_ = -1;
  std::string buf_;
};

class ControlServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(tmp_.ok());
    dir_ = tmp_.path();
    path_ = dir_ + "/cache.ctl";
    auto thread = LoopThread::Start("ctl-test");
    ASSERT_TRUE(thread.ok());
    thread_ = std::move(thread).value();
  }
  void TearDown() override {
    stop_server();
    thread_.reset();
  }
  Status start_server(ControlServerOptions options = {}) {
    if (options.path.empty()) options.path = path_;
    options.progress_interval = Nanos(0);
    Status status;
    thread_->run_sync([&] {
      auto server = ControlServer::Start(thread_->loop(), target_, options);
      status = server.ok() ? Status::Ok() : server.status();
      if (server.ok()) server_ = std::move(server).value();
    });
    return status;
  }
  void stop_server() {
    if (thread_) thread_->run_sync([&] { server_.reset(); });
  }
  size_t connections() {
    size_t n = 0;
    thread_->run_sync([&] { n = server_ ? server_->connection_count() : 0; });
    return n;
  }

  testing::TempDir tmp_{"tc-ctl"};

  std::string dir_, path_;
  FakeControlTarget target_;
  std::unique_ptr<LoopThread> thread_;
  std::unique_ptr<ControlServer> server_;
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
  for (uint8_t i = 0; i < 16; ++i) s.superblock.uuid[i] = uint8_t(0x10 + i);
  s.superblock.version = 1;
  s.superblock.line_size = 65536;
  s.superblock.line_count = 16000;
  s.superblock.was_clean_shutdown = true;
  s.policies.replacement = "sieve";
  s.policies.sequential.read_cutoff_bytes = 1 << 20;
  s.policies.sequential.write_cutoff_bytes = 2 << 20;
  s.policies.sequential.streams = 32;
  s.health = CacheHealth{.state = "degraded", .read_errors = 3, .write_errors = 2,
                         .persist_errors = 1, .dirty_bytes_at_risk = 20480};
  return s;
}

TEST_F(ControlServerTest, StatusReportsEveryField) {
  target_.set_status(SampleStatus());
  target_.set_current_mode(CacheMode::kWriteBack);
  CacheCounters c;
  c.lines_used = 900;
  c.lines_dirty = 12;
  c.dirty_sectors = 5;
  target_.set_counters(c);
  PolicyReport report;
  report.index_bytes = 204800;
  report.cleaning = "target";
  report.oldest_dirty_age_ns = 3'500'000'000;
  report.flush_eta_ns = 1'200'000'000;
  report.clean_rate_bytes_per_s = 1 << 20;
  report.cleaning_reason = "idle";
  report.cleaning_error = "NoSpace: pwrite hdd: No space left on device";
  report.cleaning_options.dirty_target = 0.05;
  report.cleaning_options.dirty_high = 0.75;
  report.cleaning_options.max_dirty_age = std::chrono::seconds(10);
  report.cleaning_options.busy_share = 0.25;
  report.cleaning_options.idle_after = std::chrono::milliseconds(2500);
  target_.set_policy_report(report);
  ASSERT_TRUE(start_server().ok());
  LineClient client(path_);
  EXPECT_EQ(client.call(R"({"cmd":"status"})"),
            R"({"ok":true,"status":{"state":"running","pid":4242,"uptime_seconds":17,)"
            R"("cache":"/dev/nvme0n1p2","core":"/dev/sdb",)"
            R"("export":"/run/tiercache/nvme0n1p2.sock","mode":"wb","cache_size":1073741824,)"
            R"("core_size":4398046511104,"uuid":"10111213-1415-1617-1819-1a1b1c1d1e1f",)"
            R"("format_version":1,"line_size":65536,"line_count":16000,"lines_used":900,)"
            R"("lines_dirty":12,"clean_shutdown_at_open":true,)"
            R"("policies":{"admission":"adaptive","replacement":"sieve",)"
            R"("sequential":{"enabled":true,"read_cutoff_bytes":1048576,)"
            R"("write_cutoff_bytes":2097152,"streams":32},"index_bytes":204800},)"
            R"("cleaning":{"policy":"target","dirty_bytes":20480,"oldest_dirty_age_ms":3500,)"
            R"("flush_eta_ms":1200,"clean_rate_bytes_per_s":1048576,"last_reason":"idle",)"
            R"("last_error":"NoSpace: pwrite hdd: No space left on device",)"
            R"("dirty_target":0.05,"dirty_high":0.75,"max_dirty_age_ms":10000,"busy_share":0.25,)"
            R"("idle_after_ms":2500},)"
            R"("health":"degraded","ssd_errors":{"read":3,"write":2,"persist":1},)"
            R"("dirty_bytes_at_risk":20480}})");
}

TEST_F(ControlServerTest, StatusReportsSequentialBypassOff) {
  ControlStatus s = SampleStatus();
  s.policies = PolicyOptions{};
  s.policies.sequential.enabled = false;
  target_.set_status(s);
  ASSERT_TRUE(start_server().ok());
  LineClient client(path_);
  std::string reply = client.call(R"({"cmd":"status"})");
  EXPECT_EQ(reply.substr(reply.find(R"("policies")")),
            R"("policies":{"admission":"adaptive","replacement":"epoch-lru",)"
            R"("sequential":{"enabled":false,"read_cutoff_bytes":4194304,)"
            R"("write_cutoff_bytes":4194304,"streams":64},"index_bytes":0},)"
            R"("cleaning":{"policy":"","dirty_bytes":0,"oldest_dirty_age_ms":0,"flush_eta_ms":-1,)"
            R"("clean_rate_bytes_per_s":0,"last_reason":"","last_error":"",)"
            R"("dirty_target":0.2,"dirty_high":0.5,)"
            R"("max_dirty_age_ms":30000,"busy_share":0.1,"idle_after_ms":1000},)"
            R"("health":"degraded",)"
            R"("ssd_errors":{"read":3,"write":2,"persist":1},"dirty_bytes_at_risk":20480}})");
}

TEST_F(ControlServerTest, StatsReportsEveryCounterInOrder) {
  CacheCounters c;
  uint64_t v = 1;
  for (uint64_t* f : {&c.read_hits, &c.read_partial_hits, &c.read_misses, &c.write_hits,
                      &c.write_misses, &c.read_bypasses, &c.write_bypasses, &c.read_hit_bytes,
                      &c.read_miss_bytes, &c.write_hit_bytes, &c.write_miss_bytes,
                      &c.bytes_read_ssd, &c.bytes_written_ssd, &c.bytes_read_core,
                      &c.bytes_written_core,
                      &c.lines_total, &c.lines_used, &c.lines_dirty, &c.dirty_sectors,
                      &c.evictions, &c.cleaner_writes, &c.cleaned_lines, &c.errors, &c.flushes,
                      &c.discards, &c.write_zeroes, &c.ssd_read_errors, &c.ssd_write_errors,
                      &c.ssd_persist_errors, &c.ssd_failovers}) {
    *f = v++;
  }
  c.fill_skipped_bytes = 99;
  c.cleaner_write_errors = 98;
  target_.set_counters(c);
  PolicyReport report;
  report.admission = "always";
  report.replacement = "s3fifo";
  report.admission_counters = {{"admitted", 30}, {"refused", 0}};
  report.replacement_counters = {{"ghost_hits", 31}, {"small_evictions", 32}};
  report.sequential_counters = {{"bypassed_read_bytes", 33}, {"bypassed_write_bytes", 34}};
  report.index_bytes = 35;
  report.oldest_dirty_age_ns = 2'500'000'000;
  target_.set_policy_report(report);
  ControlStatus status = SampleStatus();
  status.health.state = "degraded";
  target_.set_status(status);
  CacheLatency latency;
  latency.write.buckets[1] = 2;  // (10, 25 us]
  latency.write.buckets[16] = 1;  // > 1 s
  latency.write.sum_ns = 1'000'040'000;
  target_.set_latency(latency);
  ASSERT_TRUE(start_server().ok());
  LineClient client(path_);
  EXPECT_EQ(client.call(R"({"cmd":"stats"})"),
            R"({"ok":true,"stats":{"read_hits":1,"read_partial_hits":2,"read_misses":3,)"
            R"("write_hits":4,"write_misses":5,"read_bypasses":6,"write_bypasses":7,)"
            R"("read_hit_bytes":8,"read_miss_bytes":9,"write_hit_bytes":10,)"
            R"("write_miss_bytes":11,"bytes_read_ssd":12,"bytes_written_ssd":13,)"
            R"("bytes_read_core":14,"bytes_written_core":15,"lines_total":16,"lines_used":17,)"
            R"("lines_dirty":18,"dirty_sectors":19,"lines_untrusted":0,"evictions":20,"cleaner_writes":21,)"
            R"("cleaner_write_errors":98,)"
            R"("cleaned_lines":22,"fill_skipped_bytes":99,"errors":23,"flushes":24,"discards":25,"write_zeroes":26,)"
            R"("ssd_read_errors":27,"ssd_write_errors":28,"ssd_persist_errors":29,)"
            R"("ssd_failovers":30,)"
            R"("policy_counters":{"admission":{"admitted":30,"refused":0},)"
            R"("replacement":{"ghost_hits":31,"small_evictions":32},)"
            R"("sequential":{"bypassed_read_bytes":33,"bypassed_write_bytes":34},)"
            R"("cleaning":{}},"cache_name":"nvme0n1p2","health":"degraded",)"
            R"("oldest_dirty_age_ms":2500,"latency":{"bounds_ns":[10000,25000,50000,100000,)"
            R"(250000,500000,1000000,2500000,5000000,10000000,25000000,50000000,100000000,)"
            R"(250000000,500000000,1000000000],)"
            R"("hit":{"count":0,"sum_ns":0,"buckets":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]},"miss":{"count":0,"sum_ns":0,"buckets":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]},)"
            R"("write":{"count":3,"sum_ns":1000040000,"buckets":[0,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,3]},)"
            R"("flush":{"count":0,"sum_ns":0,"buckets":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]}}}})");
}

TEST_F(ControlServerTest, StatsWithPoliciesWithoutCountersSendsEmptyObjects) {
  ASSERT_TRUE(start_server().ok());
  LineClient client(path_);
  std::string reply = client.call(R"({"cmd":"stats"})");
  EXPECT_EQ(reply.substr(reply.find(R"("write_zeroes")")),
            R"("write_zeroes":0,"ssd_read_errors":0,"ssd_write_errors":0,)"
            R"("ssd_persist_errors":0,"ssd_failovers":0,"policy_counters":{"admission":{},)"
            R"("replacement":{},)"
            R"("sequential":{},"cleaning":{}},"cache_name":"","health":"ok",)"
            R"("oldest_dirty_age_ms":0,"latency":{"bounds_ns":[10000,25000,50000,100000,)"
            R"(250000,500000,1000000,2500000,5000000,10000000,25000000,50000000,100000000,)"
            R"(250000000,500000000,1000000000],)"
            R"("hit":{"count":0,"sum_ns":0,"buckets":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]},"miss":{"count":0,"sum_ns":0,"buckets":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]},"write":{"count":0,"sum_ns":0,"buckets":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]},"flush":{"count":0,"sum_ns":0,"buckets":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]}}}})");
}

TEST_F(ControlServerTest, ResetHealthAnswersTheNewHealthOrWhyTheCheckFailed) {
  ControlStatus s = SampleStatus();
  s.health.state = "failed";
  target_.set_status(s);
  target_.set_result(Status::IoError("ssd: SSD check failed, reading the superblock: EIO"));
  ASSERT_TRUE(start_server().ok());
  LineClient client(path_);
  EXPECT_EQ(client.call(R"({"cmd":"reset-health"})"),
            R"({"ok":false,"error":"ssd: SSD check failed, reading the superblock: EIO",)"
            R"("code":"IoError"})");
  target_.set_result(Status::Ok());
  EXPECT_EQ(client.call(R"({"cmd":"reset-health"})"), R"({"ok":true,"health":"ok"})");
  EXPECT_EQ(target_.reset_health_calls(), 2);
}

TEST_F(ControlServerTest, ModeQueryAndSwitch) {
  ASSERT_TRUE(start_server().ok());
  LineClient client(path_);
  EXPECT_EQ(client.call(R"({"cmd":"mode"})"), R"({"ok":true,"mode":"wt"})");
  EXPECT_EQ(client.call(R"({"cmd":"mode","mode":"wb"})"),
            R"({"ok":true,"mode":"wb","previous_mode":"wt"})");
  target_.set_completion(FakeControlTarget::Completion::kOtherThread);
  EXPECT_EQ(client.call(R"({"cmd":"mode","mode":"pt","drain":true})"),
            R"({"ok":true,"mode":"pt","previous_mode":"wb"})");
  EXPECT_EQ(client.call(R"({"cmd":"mode"})"), R"({"ok":true,"mode":"pt"})");
  auto calls = target_.mode_calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0], std::make_pair(CacheMode::kWriteBack, false));
  EXPECT_EQ(calls[1], std::make_pair(CacheMode::kPassThrough, true));
}

TEST_F(ControlServerTest, ModeFailureCarriesTheCode) {
  target_.set_result(Status::Busy("a flush is running"));
  ASSERT_TRUE(start_server().ok());
  LineClient client(path_);
  EXPECT_EQ(client.call(R"({"cmd":"mode","mode":"wa"})"),
            R"({"ok":false,"error":"a flush is running","code":"Busy"})");
  EXPECT_EQ(target_.mode(), CacheMode::kWriteThrough);
}

TEST_F(ControlServerTest, FlushStreamsDistinctProgressThenTheResult) {
  target_.set_flush_progress({5, 3, 3, 0});
  ASSERT_TRUE(start_server().ok());
  LineClient client(path_);
  client.send("{\"cmd\":\"flush\"}\n");
  EXPECT_EQ(client.line(), R"({"progress":{"dirty_lines":5}})");
  EXPECT_EQ(client.line(), R"({"progress":{"dirty_lines":3}})");
  EXPECT_EQ(client.line(), R"({"progress":{"dirty_lines":0}})");
  EXPECT_EQ(client.line(), R"({"ok":true,"dirty_lines":0})");
  EXPECT_EQ(target_.clean_calls(), 1);
}

TEST_F(ControlServerTest, FlushFromAnotherThreadKeepsOrder) {
  target_.set_completion(FakeControlTarget::Completion::kOtherThread);
  target_.set_flush_progress({9, 8, 7});
  CacheCounters c;
  c.lines_dirty = 2;  // written again while flushing
  target_.set_counters(c);
  ASSERT_TRUE(start_server().ok());
  LineClient client(path_);
  client.send("{\"cmd\":\"flush\"}\n");
  EXPECT_EQ(client.line(), R"({"progress":{"dirty_lines":9}})");
  EXPECT_EQ(client.line(), R"({"progress":{"dirty_lines":8}})");
  EXPECT_EQ(client.line(), R"({"progress":{"dirty_lines":7}})");
  EXPECT_EQ(client.line(), R"({"ok":true,"dirty_lines":2})");
}

TEST_F(ControlServerTest, FlushFailureIsAnErrorResult) {
  target_.set_result(Status::IoError("write to core failed at 4096"));
  target_.set_flush_progress({4});
  ASSERT_TRUE(start_server().ok());
  LineClient client(path_);
  client.send("{\"cmd\":\"flush\"}\n");
  EXPECT_EQ(client.line(), R"({"progress":{"dirty_lines":4}})");
  EXPECT_EQ(client.line(),
            R"({"ok":false,"error":"write to core failed at 4096","code":"IoError"})");
}

TEST_F(ControlServerTest, RequestsQueuedBehindAHeldFlushRunInOrder) {
  target_.set_completion(FakeControlTarget::Completion::kHeld);
  ASSERT_TRUE(start_server().ok());
  LineClient client(path_);
  client.send("{\"cmd\":\"flush\"}\n{\"cmd\":\"mode\"}\n");
  target_.wait_held();
  target_.send_progress(100);  // runs on the test thread, is posted to the loop
  EXPECT_EQ(client.line(), R"({"progress":{"dirty_lines":100}})");
  EXPECT_TRUE(target_.has_held());
  target_.release(Status::Ok());
  EXPECT_EQ(client.line(), R"({"ok":true,"dirty_lines":0})");
  EXPECT_EQ(client.line(), R"({"ok":true,"mode":"wt"})");
}

TEST_F(ControlServerTest, StopRepliesWhenTheTargetIsDone) {
  target_.set_completion(FakeControlTarget::Completion::kHeld);
  ASSERT_TRUE(start_server().ok());
  LineClient client(path_);
  client.send("{\"cmd\":\"stop\"}\n{\"cmd\":\"status\"}\n");
  target_.wait_held();
  EXPECT_EQ(target_.stop_calls(), 1);
  target_.release(Status::Ok());
  EXPECT_EQ(client.line(), R"({"ok":true})");
  std::string status = client.line();  // answered only after stop finished
  EXPECT_NE(status.find(R"("state":"stopping")"), std::string::npos) << status;
}

TEST_F(ControlServerTest, DetachStreamsProgressThenRepliesWithTheBytes) {
  target_.set_completion(FakeControlTarget::Completion::kHeld);
  target_.set_detach_bytes(65536);
  ASSERT_TRUE(start_server().ok());
  LineClient client(path_);
  client.send("{\"cmd\":\"detach\"}\n");
  target_.wait_held();
  EXPECT_EQ(target_.detach_calls(), 1);
  target_.send_progress(4);
  EXPECT_EQ(client.line(), R"({"progress":{"dirty_lines":4}})");
  target_.release(Status::Ok());
  EXPECT_EQ(client.line(), R"({"ok":true,"written_back_bytes":65536})");
}

TEST_F(ControlServerTest, DetachFailureIsReported) {
  target_.set_result(Status::Busy("a detach is already running"));
  ASSERT_TRUE(start_server().ok());
  LineClient client(path_);
  EXPECT_EQ(client.call(R"({"cmd":"detach"})"),
            R"({"ok":false,"error":"a detach is already running","code":"Busy"})");
}

TEST_F(ControlServerTest, StopFailureIsReported) {
  target_.set_result(Status::IoError("persist metadata: Input/output error"));
  ASSERT_TRUE(start_server().ok());
  LineClient client(path_);
  EXPECT_EQ(client.call(R"({"cmd":"stop"})"),
            R"({"ok":false,"error":"persist metadata: Input/output error","code":"IoError"})");
}

TEST_F(ControlServerTest, MalformedRequestsGetErrorsAndTheConnectionSurvives) {
  ASSERT_TRUE(start_server().ok());
  LineClient client(path_);
  EXPECT_EQ(client.call("{not json"),
            R"j({"ok":false,"error":"malformed JSON (expected one JSON object per line)",)j"
            R"("code":"InvalidArgument"})");
  EXPECT_EQ(client.call(R"({"cmd":"format"})"),
            R"({"ok":false,"error":"unknown command 'format' (expected status, stats, mode, )"
            R"j(flush, stop, detach, reset-health, policy or cleaning)",)j"
            R"("code":"InvalidArgument"})");
  EXPECT_EQ(client.call(std::string(50000, '[')),
            R"j({"ok":false,"error":"malformed JSON (expected one JSON object per line)",)j"
            R"("code":"InvalidArgument"})");
  EXPECT_EQ(client.call(R"({"cmd":"mode"})"), R"({"ok":true,"mode":"wt"})");
}

TEST_F(ControlServerTest, NonAsciiNamesAreEchoedIntact) {
  ASSERT_TRUE(start_server().ok());
  LineClient client(path_);
  // The \u escape arrives as UTF-8 in the message.
  EXPECT_EQ(client.call("{\"cmd\":\"st\\u00e4tus\"}"),
            "{\"ok\":false,\"error\":\"unknown command 'st\xc3\xa4tus' (expected status, stats, "
            "mode, flush, stop, detach, reset-health, policy or cleaning)\",\"code\":"
            "\"InvalidArgument\"}");
}

TEST_F(ControlServerTest, BlankLinesAndCrLfAreAccepted) {
  ASSERT_TRUE(start_server().ok());
  LineClient client(path_);
  client.send("\n  \r\n{\"cmd\":\"mode\"}\r\n");
  EXPECT_EQ(client.line(), R"({"ok":true,"mode":"wt"})");
}

TEST_F(ControlServerTest, PipelinedRequestsAnswerInOrder) {
  ASSERT_TRUE(start_server().ok());
  LineClient client(path_);
  client.send(
      "{\"cmd\":\"mode\",\"mode\":\"wb\"}\n{\"cmd\":\"bogus\"}\n{\"cmd\":\"mode\"}\n");
  EXPECT_EQ(client.line(), R"({"ok":true,"mode":"wb","previous_mode":"wt"})");
  EXPECT_EQ(client.line().substr(0, 12), R"({"ok":false,)");
  EXPECT_EQ(client.line(), R"({"ok":true,"mode":"wb"})");
}

TEST_F(ControlServerTest, LineAtTheLimitIsServedOneByteMoreDisconnects) {
  ASSERT_TRUE(start_server().ok());
  std::string request = R"({"cmd":"mode"})";
  {
    LineClient client(path_);
    std::string padded = request + std::string(65536 - request.size(), ' ');
    EXPECT_EQ(client.call(padded), R"({"ok":true,"mode":"wt"})");
  }
  LineClient client(path_);
  client.send(request + std::string(65537 - request.size(), ' '));  // no newline yet
  EXPECT_EQ(client.line(),
            R"({"ok":false,"error":"request line longer than 65536 bytes",)"
            R"("code":"InvalidArgument"})");
  EXPECT_EQ(client.line(), "<EOF>");
}

TEST_F(ControlServerTest, HalfClosedClientGetsItsRepliesThenEof) {
  ASSERT_TRUE(start_server().ok());
  LineClient client(path_);
  client.send("{\"cmd\":\"mode\"}\n{\"cmd\":\"mode\",\"mode\":\"wa\"}");  // last line unterminated
  client.shutdown_write();
  EXPECT_EQ(client.line(), R"({"ok":true,"mode":"wt"})");
  EXPECT_EQ(client.line(), R"({"ok":true,"mode":"wa","previous_mode":"wt"})");
  EXPECT_EQ(client.line(), "<EOF>");
}

TEST_F(ControlServerTest, ClientGoneDuringFlushIsHarmless) {
  target_.set_completion(FakeControlTarget::Completion::kHeld);
  ASSERT_TRUE(start_server().ok());
  {
    LineClient client(path_);
    client.send("{\"cmd\":\"flush\"}\n{\"cmd\":\"mode\"}\n");
    target_.wait_held();
  }
  while (connections() != 0) {
  }
  target_.send_progress(3);
  target_.release(Status::Ok());
  target_.set_completion(FakeControlTarget::Completion::kInline);
  LineClient client(path_);
  EXPECT_EQ(client.call(R"({"cmd":"mode"})"), R"({"ok":true,"mode":"wt"})");
  EXPECT_EQ(target_.clean_calls(), 1);
}

TEST_F(ControlServerTest, ServerDestroyedWithARequestInFlight) {
  target_.set_completion(FakeControlTarget::Completion::kHeld);
  ASSERT_TRUE(start_server().ok());
  LineClient client(path_);
  client.send("{\"cmd\":\"mode\",\"mode\":\"wb\"}\n");
  target_.wait_held();
  stop_server();
  EXPECT_EQ(client.line(), "<EOF>");
  EXPECT_FALSE(std::filesystem::exists(path_));
  target_.release(Status::Ok());     // posted to the loop, finds no handler: dropped
  thread_->run_sync([] {});          // let the posted callback run
}

TEST_F(ControlServerTest, SocketIsPrivate) {
  ASSERT_TRUE(start_server().ok());
  struct stat st;
  ASSERT_EQ(lstat(path_.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_F(ControlServerTest, StaleSocketIsReplacedLiveOneIsRefused) {
  Result<ListeningSocket> stale = ListenUnix(path_);
  ASSERT_TRUE(stale.ok());
  ::close(stale->fd);  // the file stays, nobody listens
  ASSERT_TRUE(std::filesystem::exists(path_));
  ASSERT_TRUE(start_server().ok());
  LineClient client(path_);
  EXPECT_EQ(client.call(R"({"cmd":"mode"})"), R"({"ok":true,"mode":"wt"})");

  Result<ListeningSocket> second = ListenUnix(path_);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().ToString(), "Busy: another process is listening on " + path_);
}

TEST_F(ControlServerTest, NonSocketPathIsRefused) {
  std::ofstream(path_) << "precious";
  Status status = start_server();
  EXPECT_EQ(status.ToString(), "InvalidArgument: " + path_ + " exists and is not a socket");
  std::ifstream in(path_);
  std::string content;
  in >> content;
  EXPECT_EQ(content, "precious");
}

TEST_F(ControlServerTest, TooLongPathIsRefused) {
  ControlServerOptions options;
  options.path = "/tmp/" + std::string(120, 'x');
  EXPECT_EQ(start_server(options).code(), Status::Code::kInvalidArgument);
}

TEST_F(ControlServerTest, ConnectionsOverTheLimitAreTurnedAway) {
  ControlServerOptions options;
  options.max_connections = 1;
  ASSERT_TRUE(start_server(options).ok());
  LineClient first(path_);
  EXPECT_EQ(first.call(R"({"cmd":"mode"})"), R"({"ok":true,"mode":"wt"})");
  LineClient second(path_);
  EXPECT_EQ(second.line(),
            R"j({"ok":false,"error":"too many control connections (limit 1)","code":"Busy"})j");
  EXPECT_EQ(second.line(), "<EOF>");
  EXPECT_EQ(first.call(R"({"cmd":"mode"})"), R"({"ok":true,"mode":"wt"})");
}

}  // namespace
}  // namespace tiercache
