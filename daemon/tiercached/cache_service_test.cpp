// CacheService's own refusals, over a real cache on files: once the daemon is stopping, a policy
// change is refused with tiercached's message (the cache's own check never runs), and the policies
// recorded in the superblock stay as they were; the cleaning flags reach the cleaner; a core that
// is missing or replaced is refused with the write-back data the cache holds for it; the cache
// itself as its core is refused as such; a core with a tail under 4 KiB serves its whole blocks.
#include "daemon/tiercached/cache_service.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <future>
#include <vector>

#include "cachelib/device/file_device.h"
#include "cachelib/metadata/core_identity.h"
#include "daemon/tiercached/unwritten_data.h"
#include "tests/support/temp_file.h"

namespace tiercache {
namespace {

class CacheServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(ssd_.ok() && core_.ok());
    config_.cache_path = ssd_.path();
    config_.core_path = core_.path();
    config_.buffered = true;
    loop_ = std::move(LoopThread::Start("service-test")).value();
    Format();
  }

  // Formats the SSD file for the core file as it is now (over any cache it holds).
  void Format() {
    auto ssd = std::move(FileDevice::Open(config_.cache_path, {.buffered = true})).value();
    auto core = IdentifyCore(config_.core_path);
    ASSERT_TRUE(core.ok()) << core.status().ToString();
    FormatOptions f;
    f.policies.admission = "always";
    f.policies.replacement = "lru";
    f.force = true;
    std::promise<Status> formatted;
    loop_->run_sync([&] {
      MetadataStore::Format(*ssd, *core, f, [&](Status s) { formatted.set_value(s); });
    });
    Status s = formatted.get_future().get();
    ASSERT_TRUE(s.ok()) << s.ToString();
    loop_->run_sync([&] { ssd.reset(); });
  }

  testing::TempFile ssd_{"tc-service-ssd", 4 << 20}, core_{"tc-service-core", 16 << 20};
  DaemonConfig config_;
  std::unique_ptr<LoopThread> loop_;
};

TEST_F(CacheServiceTest, PolicyChangeWhileStoppingIsRefused) {
  auto service = CacheService::Open(config_, *loop_);
  ASSERT_TRUE(service.ok()) << service.status().ToString();
  std::promise<Status> closed, changed;
  (*service)->close([&](Status s) { closed.set_value(s); });  // stopping from here on
  PolicyOptions next = (*service)->policies();
  next.replacement = "clock";
  loop_->run_sync([&] {
    (*service)->set_policies(next, [&](Status s) { changed.set_value(s); });
  });
  Status s = changed.get_future().get();
  EXPECT_EQ(s.code(), Status::Code::kBusy);
  EXPECT_EQ(s.message(), "tiercached is stopping (the policies stay as they are)");
  s = closed.get_future().get();
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ((*service)->status().state, "stopping");
  service->reset();
  auto recorded = RecordedSuperblock(config_.cache_path);
  ASSERT_TRUE(recorded.ok()) << recorded.status().ToString();
  EXPECT_EQ(recorded->policies.replacement, "lru");
}

TEST_F(CacheServiceTest, CleaningFlagsReachTheCleaner) {
  config_.cleaning = "nop";
  config_.dirty_target = 0.05;
  config_.dirty_high = 0.1;
  config_.max_dirty_age_s = 12;
  config_.busy_share = 0.25;
  config_.idle_after_s = 0.5;
  auto service = CacheService::Open(config_, *loop_);
  ASSERT_TRUE(service.ok()) << service.status().ToString();
  const PolicyReport report = (*service)->policy_report();
  EXPECT_EQ(report.cleaning, "nop");
  EXPECT_EQ(report.cleaning_options.dirty_target, 0.05);
  EXPECT_EQ(report.cleaning_options.dirty_high, 0.1);
  EXPECT_EQ(report.cleaning_options.max_dirty_age, std::chrono::seconds(12));
  EXPECT_EQ(report.cleaning_options.age_margin, std::chrono::seconds(2));
  EXPECT_EQ(report.cleaning_options.busy_share, 0.25);
  EXPECT_EQ(report.cleaning_options.idle_after, std::chrono::milliseconds(500));
  std::promise<Status> closed;
  (*service)->close([&](Status s) { closed.set_value(s); });
  Status s = closed.get_future().get();
  EXPECT_TRUE(s.ok()) << s.ToString();
}

// A core file whose size is not a multiple of 4 KiB is served as its whole 4 KiB blocks (the
// device's size), not refused for differing from its identity by the tail.
TEST_F(CacheServiceTest, ACoreWithATailServesItsWholeBlocks) {
  ASSERT_EQ(::truncate(core_.path().c_str(), (16 << 20) + 1000), 0);
  Format();
  auto service = CacheService::Open(config_, *loop_);
  ASSERT_TRUE(service.ok()) << service.status().ToString();
  EXPECT_EQ((*service)->cache().size(), uint64_t{16} << 20);
  std::vector<std::byte> data(4096, std::byte{0x5a}), back(4096);
  Status s = loop_->call<Status>([&](auto done) {
    (*service)->cache().write((16 << 20) - 4096, data, {}, std::move(done));
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  s = loop_->call<Status>([&](auto done) {
    (*service)->cache().read((16 << 20) - 4096, back, std::move(done));
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(back, data);
}

// The cache file given as its own core is refused as such: its lock would otherwise fail as if
// another tiercached held the core.
TEST_F(CacheServiceTest, TheCacheGivenAsItsOwnCoreIsRefusedAsSuch) {
  config_.core_path = config_.cache_path;
  Status s = CacheService::Open(config_, *loop_).status();
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s.ToString();
  EXPECT_EQ(s.message(), "core " + ssd_.path() + " is the cache device " + ssd_.path() + " itself");
}

// An unknown timing model is the option's error, said before any device is opened: it used to
// read as a refused core ("... holds no write-back data for it").
TEST_F(CacheServiceTest, AnUnknownTimingModelNamesItsOption) {
  config_.core_model = "hdd9000";
  Status s = CacheService::Open(config_, *loop_).status();
  EXPECT_EQ(s.code(), Status::Code::kNotFound) << s.ToString();
  EXPECT_EQ(s.message().rfind("--core-model: no device profile 'hdd9000' (known: ", 0), 0u)
      << s.message();
  EXPECT_EQ(s.message().find("write-back"), std::string::npos) << s.message();
  config_.core_model.clear();
  config_.cache_model = "optane";
  s = CacheService::Open(config_, *loop_).status();
  EXPECT_EQ(s.message().rfind("--cache-model: no device profile 'optane' (known: ", 0), 0u)
      << s.message();
}

// The core a cache was made for is gone, or another device stands in its place: the refusal
// says how much write-back data the cache holds for it, counted from the SSD without writing to
// it, and the cache opens with that data once the core is back.
TEST_F(CacheServiceTest, AMissingCoreIsRefusedWithTheWriteBackDataItIsOwed) {
  config_.cleaning = "nop";  // the dirty data stays
  const std::string moved = core_.path() + ".moved";
  auto open_without_core = [&]() {
    EXPECT_EQ(std::rename(core_.path().c_str(), moved.c_str()), 0);
    auto service = CacheService::Open(config_, *loop_);
    EXPECT_EQ(std::rename(moved.c_str(), core_.path().c_str()), 0);
    return service.status();
  };
  Status refused = open_without_core();
  EXPECT_EQ(refused.code(), Status::Code::kNotFound);
  EXPECT_EQ(refused.message(), "core " + core_.path() + " does not exist; " + ssd_.path() +
                                   " holds no write-back data for it: the core is complete on "
                                   "its own; if you write to it without the cache, run `tiercache "
                                   "create --force` on the cache before using the two together "
                                   "again");

  const std::vector<std::byte> data(12288, std::byte{0x5a});
  {
    auto service = CacheService::Open(config_, *loop_);
    ASSERT_TRUE(service.ok()) << service.status().ToString();
    Cache& cache = (*service)->cache();
    Status s = loop_->call<Status>([&](auto done) {
      cache.set_mode(CacheMode::kWriteBack, false, std::move(done));
    });
    ASSERT_TRUE(s.ok()) << s.ToString();
    for (uint64_t off : {0u, 65536u}) {  // 3 + 3 dirty sectors on 6 lines
      s = loop_->call<Status>([&](auto done) { cache.write(off, data, {}, std::move(done)); });
      ASSERT_TRUE(s.ok()) << s.ToString();
    }
    std::promise<Status> closed;
    (*service)->close([&](Status c) { closed.set_value(c); });
    ASSERT_TRUE(closed.get_future().get().ok());
  }
  refused = open_without_core();
  EXPECT_EQ(refused.code(), Status::Code::kNotFound);
  EXPECT_EQ(refused.message(),
            "core " + core_.path() + " does not exist; " + ssd_.path() + " holds 24 KiB of "
            "write-back data (6 lines) not yet on that core: reconnect the core (if its path "
            "changed, start tiercached with --core NEWPATH), and do not recreate the cache, "
            "which would lose it");

  // Another file of the same size where the core was: refused by its identity, with the same
  // count.
  ASSERT_EQ(std::rename(core_.path().c_str(), moved.c_str()), 0);
  {
    testing::TempFile other("tc-service-other", 16 << 20);
    ASSERT_EQ(std::rename(other.path().c_str(), core_.path().c_str()), 0);
    refused = CacheService::Open(config_, *loop_).status();
    ASSERT_EQ(std::rename(core_.path().c_str(), other.path().c_str()), 0);
  }
  ASSERT_EQ(std::rename(moved.c_str(), core_.path().c_str()), 0);
  EXPECT_EQ(refused.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(refused.message(),
            "core " + core_.path() + " is not the device cache " + ssd_.path() + " was created "
            "for (" + core_.path() + "); if it holds the same data under a new identity (a "
            "copied or restored image, a renumbered device), re-bind it with `tiercache attach "
            "--cache " + ssd_.path() + " --core " + core_.path() + "`; " + ssd_.path() +
            " holds 24 KiB of write-back data (6 lines) not yet on that core: reconnect the core "
            "(if its path changed, start tiercached with --core NEWPATH), and do not recreate "
            "the cache, which would lose it");

  auto service = CacheService::Open(config_, *loop_);
  ASSERT_TRUE(service.ok()) << service.status().ToString();
  EXPECT_EQ((*service)->counters().lines_dirty, 6u);
  std::vector<std::byte> back(data.size());
  Status s = loop_->call<Status>([&](auto done) {
    (*service)->cache().read(65536, back, std::move(done));
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(back, data);
  std::promise<Status> closed;
  (*service)->close([&](Status c) { closed.set_value(c); });
  EXPECT_TRUE(closed.get_future().get().ok());
}

// A count that fails (damaged metadata, say) is said as such, with the command that tells.
TEST(ExplainRefusedCoreTest, ACountThatFailedSaysSoAndWhatTells) {
  const Status s = ExplainRefusedCore(Status::NotFound("core /dev/sdb does not exist"), "ssd.img",
                                      Status::Corruption("ssd.img: page 3 is damaged"));
  EXPECT_EQ(s.code(), Status::Code::kNotFound);
  EXPECT_EQ(s.message(),
            "core /dev/sdb does not exist; could not count the write-back data ssd.img holds for "
            "it (Corruption: ssd.img: page 3 is damaged): `tiercache check --cache ssd.img` "
            "tells; do not recreate the cache before the core is back");
  EXPECT_EQ(ExplainRefusedCore(Status::NotFound("core /dev/sdb does not exist"), "ssd.img",
                               UnwrittenData{.lines = 1, .bytes = 4096})
                .message(),
            "core /dev/sdb does not exist; ssd.img holds 4 KiB of write-back data (1 line) not "
            "yet on that core: reconnect the core (if its path changed, start tiercached with "
            "--core NEWPATH), and do not recreate the cache, which would lose it");
}

}  // namespace
}  // namespace tiercache
