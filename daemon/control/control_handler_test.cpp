#include "daemon/control/control_handler.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "cachelib/common/logger.h"
#include "cachelib/common/sim_event_loop.h"
#include "daemon/control/testing/fake_control_target.h"
#include "tests/support/cache_fixture.h"

namespace tiercache {
namespace {

using testing::FakeControlTarget;

// The handler on a SimEventLoop: progress throttling in virtual time.
class ControlHandlerTest : public ::testing::Test {
 protected:
  void SetUp() override { target_.set_completion(FakeControlTarget::Completion::kHeld); }
  ControlHandler::Emit collect() {
    return [this](const ControlJson& response, bool final) {
      lines_.push_back(response.dump() + (final ? " [final]" : ""));
    };
  }
  ControlRequest flush() {
    ControlRequest r;
    r.command = ControlCommand::kFlush;
    return r;
  }

  SimEventLoop loop_;
  FakeControlTarget target_;
  std::vector<std::string> lines_;
};

TEST_F(ControlHandlerTest, ProgressIsThrottledAndDeduplicated) {
  ControlHandler handler(loop_, target_, std::chrono::milliseconds(100));
  handler.execute(flush(), collect());
  target_.send_progress(10);
  loop_.run_until_idle();
  target_.send_progress(9);  // within 100 ms of the last line: dropped
  loop_.run_until_idle();
  loop_.run_for(std::chrono::milliseconds(100));
  target_.send_progress(8);
  loop_.run_until_idle();
  loop_.run_for(std::chrono::milliseconds(500));
  target_.send_progress(8);  // unchanged: dropped
  loop_.run_until_idle();
  target_.release(Status::Ok());
  loop_.run_until_idle();
  EXPECT_EQ(lines_, (std::vector<std::string>{R"({"progress":{"dirty_lines":10}})",
                                              R"({"progress":{"dirty_lines":8}})",
                                              R"({"ok":true,"dirty_lines":0} [final])"}));
}

TEST_F(ControlHandlerTest, CallbacksAreDeliveredOnTheLoopNeverInline) {
  ControlHandler handler(loop_, target_, Nanos(0));
  ControlRequest mode;
  mode.command = ControlCommand::kMode;
  mode.mode = CacheMode::kWriteAround;
  target_.set_completion(FakeControlTarget::Completion::kInline);
  handler.execute(mode, collect());
  EXPECT_TRUE(lines_.empty());  // the target completed inline; the reply waits for the loop
  loop_.run_until_idle();
  EXPECT_EQ(lines_, (std::vector<std::string>{
                        R"({"ok":true,"mode":"wa","previous_mode":"wt"} [final])"}));
}

TEST_F(ControlHandlerTest, CallbacksAfterTheHandlerIsGoneAreDropped) {
  auto handler = std::make_unique<ControlHandler>(loop_, target_, Nanos(0));
  handler->execute(flush(), collect());
  handler.reset();
  target_.send_progress(4);
  target_.release(Status::Ok());
  loop_.run_until_idle();
  EXPECT_TRUE(lines_.empty());
}

PolicyOptions Named(const char* admission, const char* replacement) {
  PolicyOptions p;
  p.admission = admission;
  p.replacement = replacement;
  return p;
}

ControlRequest Parsed(std::string_view line) {
  Result<ControlRequest> r = ParseControlRequest(line);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : ControlRequest{};
}

// `policy` without fields reports; with fields it changes only those, over the ones in force,
// and answers the new and previous policies; a refusal is an error reply and changes nothing.
TEST_F(ControlHandlerTest, PolicyQueryChangeAndRefusal) {
  ControlStatus status;
  status.policies = Named("always", "lru");
  target_.set_status(status);
  target_.set_completion(FakeControlTarget::Completion::kInline);
  ControlHandler handler(loop_, target_, Nanos(0));
  handler.execute(Parsed(R"({"cmd":"policy"})"), collect());
  handler.execute(Parsed(R"({"cmd":"policy","replacement":"clock"})"), collect());
  loop_.run_until_idle();
  target_.set_result(Status::InvalidArgument("unknown admission policy 'x'"));
  handler.execute(Parsed(R"({"cmd":"policy","admission":"x"})"), collect());
  loop_.run_until_idle();
  const std::string seq =
      R"("sequential":{"enabled":true,"read_cutoff_bytes":4194304,"write_cutoff_bytes":4194304,)"
      R"("streams":64})";
  EXPECT_EQ(lines_, (std::vector<std::string>{
                        R"({"ok":true,"policies":{"admission":"always","replacement":"lru",)" +
                            seq + "}} [final]",
                        R"({"ok":true,"policies":{"admission":"always","replacement":"clock",)" +
                            seq + R"(},"previous_policies":{"admission":"always",)" +
                            R"("replacement":"lru",)" + seq + "}} [final]",
                        R"({"ok":false,"error":"unknown admission policy 'x'",)"
                        R"("code":"InvalidArgument"} [final])"}));
  auto calls = target_.policy_calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0], Named("always", "clock"));
  EXPECT_EQ(calls[1], Named("x", "clock"));
  EXPECT_EQ(target_.policies(), Named("always", "clock"));
}

// `cleaning` without fields reports; with fields it changes only those, over the ones in force
// (a new max_dirty_age brings its age margin), and answers the new and previous settings; a
// refusal is an error reply and changes nothing.
TEST_F(ControlHandlerTest, CleaningQueryChangeAndRefusal) {
  PolicyReport report;
  report.cleaning = "target";
  target_.set_policy_report(report);
  target_.set_completion(FakeControlTarget::Completion::kInline);
  ControlHandler handler(loop_, target_, Nanos(0));
  handler.execute(Parsed(R"({"cmd":"cleaning"})"), collect());
  handler.execute(Parsed(R"({"cmd":"cleaning","policy":"nop","max_dirty_age_ms":12000})"),
                  collect());
  loop_.run_until_idle();
  target_.set_result(Status::InvalidArgument("dirty_target must be in [0, dirty_high)"));
  handler.execute(Parsed(R"({"cmd":"cleaning","dirty_target":0.9})"), collect());
  loop_.run_until_idle();
  const std::string knobs = R"("dirty_target":0.2,"dirty_high":0.5,)";
  const std::string rest = R"("busy_share":0.1,"idle_after_ms":1000})";
  EXPECT_EQ(lines_,
            (std::vector<std::string>{
                R"({"ok":true,"cleaning":{"policy":"target",)" + knobs +
                    R"("max_dirty_age_ms":30000,)" + rest + "} [final]",
                R"({"ok":true,"cleaning":{"policy":"nop",)" + knobs +
                    R"("max_dirty_age_ms":12000,)" + rest +
                    R"(,"previous_cleaning":{"policy":"target",)" + knobs +
                    R"("max_dirty_age_ms":30000,)" + rest + "} [final]",
                R"x({"ok":false,"error":"dirty_target must be in [0, dirty_high)",)x"
                R"("code":"InvalidArgument"} [final])"}));
  auto calls = target_.cleaning_calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].first, "nop");
  EXPECT_EQ(calls[0].second.max_dirty_age, std::chrono::seconds(12));
  EXPECT_EQ(calls[0].second.age_margin, std::chrono::seconds(2));
  EXPECT_EQ(calls[1].first, "nop");  // over the one in force after the first change
  EXPECT_EQ(calls[1].second.dirty_target, 0.9);
  EXPECT_EQ(calls[1].second.max_dirty_age, std::chrono::seconds(12));
  EXPECT_EQ(target_.policy_report().cleaning, "nop");
  EXPECT_EQ(target_.policy_report().cleaning_options.dirty_target, 0.2);
}

// A ControlTarget over a real Cache, as tiercached's CacheService is, without its devices and
// daemon state: what the handler asks reaches the engine itself.
class CacheTarget final : public ControlTarget {
 public:
  explicit CacheTarget(Cache& cache) : cache_(cache) {}
  ControlStatus status() const override {
    ControlStatus s;
    s.policies = cache_.policies();
    return s;
  }
  CacheCounters counters() const override { return cache_.counters(); }
  CacheMode mode() const override { return cache_.mode(); }
  PolicyReport policy_report() const override { return cache_.policy_report(); }
  void set_mode(CacheMode mode, bool drain, DoneCallback done) override {
    cache_.set_mode(mode, drain, std::move(done));
  }
  void clean_all(ProgressCallback progress, DoneCallback done) override {
    cache_.clean_all(std::move(progress), std::move(done));
  }
  void stop(DoneCallback done) override { done(Status::NotSupported("not a daemon")); }
  void detach(ProgressCallback, DetachCallback done) override {
    done(Status::NotSupported("not a daemon"));
  }
  PolicyOptions policies() const override { return cache_.policies(); }
  void set_policies(const PolicyOptions& next, DoneCallback done) override {
    cache_.set_policies(next, std::move(done));
  }
  void set_cleaning(const std::string& policy, const CleaningOptions& options,
                    DoneCallback done) override {
    cache_.set_cleaning(policy, options, std::move(done));
  }

 private:
  Cache& cache_;
};

// The handler over a cache on the harness's SimEventLoop, with the log captured.
class ControlHandlerCacheTest : public ::testing::Test {
 protected:
  ControlHandlerCacheTest() {
    FormatOptions f;
    f.line_size = 64 * 1024;
    f.policies = Named("always", "lru");
    f.policies.sequential.enabled = false;
    CacheOptions o;
    o.shards = 4;
    h = std::make_unique<testing::CacheHarness>(2 << 20, 64 << 20, f, o);
    h->open();
    Logger::instance().set_sink([this](std::string_view line) { log_.emplace_back(line); });
    Logger::instance().set_time_source([] { return std::string("T"); });
  }
  ~ControlHandlerCacheTest() override {
    Logger::instance().set_sink(nullptr);
    Logger::instance().set_time_source(nullptr);
  }
  ControlHandler::Emit collect() {
    return [this](const ControlJson& response, bool final) {
      lines_.push_back(response.dump() + (final ? " [final]" : ""));
    };
  }

  std::unique_ptr<testing::CacheHarness> h;
  std::vector<std::string> lines_, log_;
};

// A change asked once the cache is closing is an error reply (Busy), logged as
// policy_change_failed; the close completes and the cache keeps its policies.
TEST_F(ControlHandlerCacheTest, PolicyChangeWhileTheCacheClosesIsBusy) {
  CacheTarget target(*h->cache);
  ControlHandler handler(h->loop, target, Nanos(0));
  std::optional<Status> closed;
  {
    EventLoop::ScopedCurrent scope(&h->loop);
    h->cache->close([&closed](Status s) { closed = s; });
    handler.execute(Parsed(R"({"cmd":"policy","replacement":"clock"})"), collect());
  }
  h->loop.run_until_idle();
  ASSERT_TRUE(closed.has_value());
  EXPECT_TRUE(closed->ok()) << closed->ToString();
  EXPECT_EQ(lines_, (std::vector<std::string>{
                        R"x({"ok":false,"error":"the cache is closing (its policies stay as they )x"
                        R"x(are)","code":"Busy"} [final])x"}));
  EXPECT_EQ(log_, (std::vector<std::string>{
                      "ts=T level=error event=policy_change_failed from=\"always,lru,seq=off\" "
                      "to=\"always,clock,seq=off\" error=\"Busy: the cache is closing (its "
                      "policies stay as they are)\"\n"}));
  h->open();
  EXPECT_EQ(h->cache->policy_report().replacement, "lru");
}

// A change through the handler: the engine logs how its new replacement policy held the shard
// locks (4 shards of a few lines: one hold each), then the handler logs the change.
TEST_F(ControlHandlerCacheTest, PolicyChangeLogsTheSwapThenTheChange) {
  CacheTarget target(*h->cache);
  ControlHandler handler(h->loop, target, Nanos(0));
  {
    EventLoop::ScopedCurrent scope(&h->loop);
    handler.execute(Parsed(R"({"cmd":"policy","replacement":"clock"})"), collect());
  }
  h->loop.run_until_idle();
  ASSERT_EQ(lines_.size(), 1u);
  EXPECT_TRUE(lines_[0].starts_with(R"({"ok":true,)")) << lines_[0];
  ASSERT_EQ(log_.size(), 2u);
  const std::string swap = "ts=T level=info event=policy_swap shards=4 holds=4 longest_hold_us=";
  EXPECT_EQ(log_[0].substr(0, swap.size()), swap);
  EXPECT_NE(log_[0].find(" mean_hold_us="), std::string::npos);
  EXPECT_NE(log_[0].find(" total_us="), std::string::npos);
  EXPECT_EQ(log_[1], "ts=T level=info event=policy_change from=\"always,lru,seq=off\" "
                     "to=\"always,clock,seq=off\"\n");
  EXPECT_EQ(h->cache->policy_report().replacement, "clock");
}

// A cleaning change reaches the cache's cleaner and is logged; options the policy refuses are an
// error reply, logged as cleaning_change_failed, and the cleaning in use stays.
TEST_F(ControlHandlerCacheTest, CleaningChangeReachesTheCleaner) {
  CacheTarget target(*h->cache);
  ControlHandler handler(h->loop, target, Nanos(0));
  for (const char* line : {R"({"cmd":"cleaning","policy":"nop","idle_after_ms":250})",
                           R"({"cmd":"cleaning","dirty_target":0.9})"}) {
    {
      EventLoop::ScopedCurrent scope(&h->loop);
      handler.execute(Parsed(line), collect());
    }
    h->loop.run_until_idle();
  }
  ASSERT_EQ(lines_.size(), 2u);
  EXPECT_TRUE(lines_[0].starts_with(R"({"ok":true,"cleaning":{"policy":"nop",)")) << lines_[0];
  EXPECT_EQ(lines_[1], R"x({"ok":false,"error":"dirty_target must be in [0, dirty_high)",)x"
                       R"x("code":"InvalidArgument"} [final])x");
  EXPECT_EQ(log_, (std::vector<std::string>{
                      "ts=T level=info event=cleaning_change from=target,0.2,0.5,30000,0.1,1000 "
                      "to=nop,0.2,0.5,30000,0.1,250\n",
                      "ts=T level=error event=cleaning_change_failed from=nop,0.2,0.5,30000,0.1,"
                      "250 to=nop,0.9,0.5,30000,0.1,250 error=\"InvalidArgument: dirty_target "
                      "must be in [0, dirty_high)\"\n"}));
  const PolicyReport report = h->cache->policy_report();
  EXPECT_EQ(report.cleaning, "nop");
  EXPECT_EQ(report.cleaning_options.idle_after, std::chrono::milliseconds(250));
  EXPECT_EQ(report.cleaning_options.dirty_target, 0.2);
}

}  // namespace
}  // namespace tiercache
