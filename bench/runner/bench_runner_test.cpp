#include "bench/runner/bench_runner.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "bench/runner/report_json.h"
#include "cachelib/device/device_wrapper.h"
#include "cachelib/device/memory_device.h"

namespace tiercache::bench {
namespace {

// Small test areas keep these fast (and fast enough under ASan); the shapes of the results do not
// depend on the size.
CatalogOptions SmallCatalog() {
  CatalogOptions o;
  o.area_bytes = 64ull << 20;
  o.large_area_bytes = 256ull << 20;
  o.random_ops = 1500;
  return o;
}

BenchResults RunBench(const std::string& selection, std::vector<std::string> setups,
                      uint32_t passes, uint64_t cache_bytes = 128ull << 20,
                      std::optional<uint64_t> seq_cutoff = std::nullopt) {
  const CatalogOptions catalog = SmallCatalog();
  BenchConfig config;
  config.policies.seq_cutoff_bytes = seq_cutoff;
  config.setups = std::move(setups);
  config.passes = passes;
  config.cache_bytes = cache_bytes;
  auto workloads = WorkloadCatalog(catalog).select(selection);
  EXPECT_TRUE(workloads.ok()) << workloads.status().ToString();
  BenchRunner runner(config, ModelProfiles::Builtin().value());
  auto results = runner.run(workloads.value(), nullptr);
  EXPECT_TRUE(results.ok()) << results.status().ToString();
  for (const auto& w : results->workloads) {
    for (const auto& s : w.setups) EXPECT_EQ(s.error, "") << w.name << "/" << s.name;
  }
  return std::move(results).value();
}

double Warm(const WorkloadResult& w, const std::string& setup) {
  return w.value(w.setup(setup)->passes.back());
}

TEST(BenchRunnerTest, SameSeedSameNumbers) {
  auto a = RunBench("cdm:RND4K-Q32T1-read,gameload", {"hdd", "wb"}, 2);
  auto b = RunBench("cdm:RND4K-Q32T1-read,gameload", {"hdd", "wb"}, 2);
  EXPECT_EQ(ToJsonText(a), ToJsonText(b));
}

TEST(BenchRunnerTest, JsonFromARealRunHasTheScriptShape) {
  auto r = RunBench("cdm:SEQ1M-Q8T1-read", {"hdd", "ssd", "wt"}, 2);
  auto doc = nlohmann::json::parse(ToJsonText(r));
  ASSERT_EQ(doc["workloads"].size(), 1u);
  EXPECT_EQ(doc["workloads"][0]["name"], "cdm:SEQ1M-Q8T1-read");
  const auto& setups = doc["workloads"][0]["setups"];
  ASSERT_EQ(setups.size(), 3u);
  for (const auto& s : setups) {
    ASSERT_EQ(s["passes"].size(), 2u);
    for (const auto& p : s["passes"]) {
      for (const char* key : {"seconds", "mb_per_s", "iops", "ssd_bytes_written"}) {
        EXPECT_TRUE(p[key].is_number()) << s["name"] << " " << key;
      }
      EXPECT_TRUE(p.contains("hit_ratio"));
      EXPECT_GT(p["mb_per_s"].get<double>(), 0);
    }
  }
  EXPECT_TRUE(setups[0]["passes"][0]["hit_ratio"].is_null());
  EXPECT_TRUE(setups[2]["passes"][1]["hit_ratio"].is_number());
  EXPECT_EQ(setups[1]["passes"][0]["ssd_bytes_written"], 0u);  // a read test writes nothing
}

TEST(BenchRunnerTest, WriteThroughSpeedsUpRereadsButNotWrites) {
  // Sequential bypass off: CrystalDiskMark writes its test file sequentially first, and this test
  // is about re-reads of cached data (with bypass the file is cached only as it is read).
  auto r = RunBench("cdm:RND4K-Q1T1-read,cdm:RND4K-Q1T1-write,cdm:SEQ1M-Q1T1-write",
                    {"hdd", "ssd", "wt"}, 2, 128ull << 20, /*seq_cutoff=*/0);
  const auto& rr = r.workloads[0];
  EXPECT_GT(Warm(rr, "wt"), 10 * Warm(rr, "hdd"));
  // Cached warm 4 KiB random reads approach the SSD.
  EXPECT_GT(Warm(rr, "wt"), 0.8 * Warm(rr, "ssd"));
  EXPECT_GT(*rr.setup("wt")->passes.back().hit_ratio, 0.99);
  for (const auto* w : {&r.workloads[1], &r.workloads[2]}) {
    EXPECT_LT(Warm(*w, "wt"), 1.05 * Warm(*w, "hdd")) << w->name;
  }
}

TEST(BenchRunnerTest, WriteBackSpeedsUpSmallRandomWrites) {
  auto r = RunBench("cdm:RND4K-Q1T1-write,cdm:RND4K-Q32T1-write", {"hdd", "wb"}, 2);
  for (const auto& w : r.workloads) {
    EXPECT_GT(Warm(w, "wb"), 20 * Warm(w, "hdd")) << w.name;
    // Every written byte went to the SSD.
    EXPECT_GE(w.setup("wb")->passes.back().ssd_bytes_written, 1500u * 4096) << w.name;
  }
}

TEST(BenchRunnerTest, BootWarmCachesReachTheTargets) {
  // The shipped boot trace (~270 MB read) with a cache that holds it.
  auto r = RunBench("boot", {"hdd", "ssd", "wt", "wb"}, 3, 1ull << 30);
  const WorkloadResult& boot = r.workloads[0];
  const double hdd = Warm(boot, "hdd"), ssd = Warm(boot, "ssd");
  for (const char* mode : {"wt", "wb"}) {
    const SetupResult& s = *boot.setup(mode);
    // Later passes are faster than the cold one.
    EXPECT_LT(s.passes[1].seconds, 0.5 * s.passes[0].seconds) << mode;
    EXPECT_LT(s.passes[2].seconds, 0.5 * s.passes[0].seconds) << mode;
    // Warm: at least 4x faster than the HDD and within 1.3x of the SSD.
    EXPECT_LE(Warm(boot, mode) * 4, hdd) << mode;
    EXPECT_LE(Warm(boot, mode), 1.3 * ssd) << mode;
  }
  std::printf("boot: hdd %.2f s, ssd %.2f s, wt %.2f s, wb %.2f s (warm)\n", hdd, ssd,
              Warm(boot, "wt"), Warm(boot, "wb"));
}

TEST(BenchRunnerTest, RecordedAppLaunchReplaysOnEverySetup) {
  // bench/traces/realapp.iolog: 1083 requests (1015 reads, 51 writes, 17 flushes), 39.6 MB read.
  auto r = RunBench("realapp", {"hdd", "ssd", "wt", "wb"}, 2, 256ull << 20);
  const WorkloadResult& w = r.workloads[0];
  EXPECT_EQ(w.name, "realapp");
  EXPECT_EQ(w.metric, "seconds");
  for (const SetupResult& s : w.setups) {
    for (const PassResult& p : s.passes) {
      EXPECT_EQ(p.ops, 1083u) << s.name;
      EXPECT_EQ(p.bytes_read, 39571456u) << s.name;
      EXPECT_EQ(p.bytes_written, 1380352u) << s.name;
      EXPECT_EQ(p.errors, 0u) << s.name;
    }
  }
  // The second launch finds the tree in the cache: warm wt and wb beat the HDD.
  for (const char* mode : {"wt", "wb"}) {
    EXPECT_LT(w.setup(mode)->passes[1].seconds, 0.5 * w.setup(mode)->passes[0].seconds) << mode;
    EXPECT_LE(Warm(w, mode) * 4, Warm(w, "hdd")) << mode;
  }
  auto traces = WorkloadCatalog(CatalogOptions{}).select("traces");
  ASSERT_TRUE(traces.ok());
  ASSERT_EQ(traces->size(), 4u);
  EXPECT_EQ((*traces)[3].name, "realapp");
}

TEST(BenchRunnerTest, WorkingSetLargerThanTheCacheGainsLittle) {
  // cdm-large: a 256 MiB test area through a 128 MiB cache.
  auto r = RunBench("cdm-large:RND4K-Q1T1-read", {"hdd", "wt"}, 3);
  const auto& w = r.workloads[0];
  EXPECT_LT(Warm(w, "wt"), 3 * Warm(w, "hdd"));
  EXPECT_LT(*w.setup("wt")->passes.back().hit_ratio, 0.6);
}

TEST(BenchRunnerTest, HdTuneMeasuresEveryPositionOfEveryPass) {
  // A 64 MiB area: 64 reads of 1 MiB, one per position.
  auto r = RunBench("hdtune", {"hdd", "ssd", "wt"}, 2);
  const WorkloadResult& w = r.workloads[0];
  EXPECT_EQ(w.name, "hdtune");
  EXPECT_EQ(w.metric, "mb_per_s");
  for (const SetupResult& s : w.setups) {
    ASSERT_EQ(s.passes.size(), 2u) << s.name;
    for (const PassResult& p : s.passes) {
      EXPECT_EQ(p.ops, 64u) << s.name;
      EXPECT_EQ(p.bytes_read, 64u << 20) << s.name;
      EXPECT_EQ(p.bytes_written, 0u) << s.name;
      ASSERT_EQ(p.positions.size(), 64u) << s.name;
      double seconds = 0;
      for (size_t k = 0; k < 64; ++k) {
        EXPECT_EQ(p.positions[k].offset, k << 20) << s.name;
        ASSERT_GT(p.positions[k].mb_per_s, 0) << s.name << " " << k;
        seconds += (1 << 20) / 1e6 / p.positions[k].mb_per_s;
      }
      // The positions split the pass: their times add up to it.
      EXPECT_NEAR(seconds, p.seconds, 1e-9 * p.seconds) << s.name;
    }
  }
  auto doc = nlohmann::json::parse(ToJsonText(r));
  EXPECT_EQ(doc["workloads"][0]["setups"][2]["passes"][1]["positions"].size(), 64u);
}

TEST(BenchRunnerTest, CatalogMakesHdTuneOverTheTestArea) {
  auto w = WorkloadCatalog(CatalogOptions{}).select("hdtune");
  ASSERT_TRUE(w.ok());
  const WorkloadSpec& spec = (*w)[0];
  ASSERT_TRUE(spec.hdtune.has_value());
  EXPECT_EQ(spec.hdtune->offset, 64ull << 30);
  EXPECT_EQ(spec.hdtune->bytes, 1ull << 30);
  EXPECT_EQ(spec.hdtune->block, 1u << 20);
  EXPECT_EQ(spec.hdtune->positions, 64u);
  EXPECT_FALSE(spec.preparation.has_value());  // pass 1 meets a cold cache
  const Trace t = spec.make_pass(3);
  ASSERT_EQ(t.records.size(), 1024u);
  EXPECT_EQ(t.records[1023].offset, (64ull << 30) + (1023ull << 20));
  EXPECT_EQ(spec.description,
            "HD Tune linear read: 1 MiB reads at QD1 over the 1024 MiB test area, MB/s at 64 "
            "positions");
  for (const std::string& sel : {std::string("all"), WorkloadCatalog::DefaultSelection()}) {
    auto all = WorkloadCatalog(CatalogOptions{}).select(sel);
    ASSERT_TRUE(all.ok());
    EXPECT_EQ(std::count_if(all->begin(), all->end(),
                            [](const WorkloadSpec& s) { return s.name == "hdtune"; }),
              1)
        << sel;
  }
}

TEST(BenchRunnerTest, PolicyOptionsAreRecorded) {
  BenchConfig config;
  config.policies.admission = "always";
  config.policies.replacement = "s3fifo";
  config.policies.seq_cutoff_bytes = 0;
  config.policies.cleaning = "nop";
  BenchRunner runner(config, ModelProfiles::Builtin().value());
  auto r = runner.run({}, nullptr);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->policies.admission, "always");
  EXPECT_EQ(r->policies.replacement, "s3fifo");
  EXPECT_EQ(r->policies.seq_cutoff_bytes, std::optional<uint64_t>(0));
  EXPECT_EQ(r->policies.cleaning, "nop");
}

// Random 4 KiB writes into wb, 2 passes: what reaches the HDD during them is the cleaner's.
std::vector<uint64_t> WbPassHddWrites(const BenchPolicies& policies) {
  BenchConfig config;
  config.setups = {"wb"};
  config.passes = 2;
  config.cache_bytes = 128ull << 20;
  config.policies = policies;
  auto workloads = WorkloadCatalog(SmallCatalog()).select("cdm:RND4K-Q32T1-write");
  EXPECT_TRUE(workloads.ok());
  auto r = BenchRunner(config, ModelProfiles::Builtin().value()).run(workloads.value(), nullptr);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  const SetupResult& wb = r->workloads.at(0).setups.at(0);
  EXPECT_EQ(wb.error, "");
  std::vector<uint64_t> written;
  for (const PassResult& p : wb.passes) {
    EXPECT_GT(p.bytes_written, 0u);
    written.push_back(p.hdd_bytes_written);
  }
  return written;
}

TEST(BenchRunnerTest, CleaningOptionsReachTheWriteBackCache) {
  // Above 0.1% of the cache dirty, clean back to back: the passes' writes reach the HDD.
  BenchPolicies eager;
  eager.cleaning_options.emplace();
  eager.cleaning_options->dirty_target = 0;
  eager.cleaning_options->dirty_high = 0.001;
  for (uint64_t bytes : WbPassHddWrites(eager)) EXPECT_GT(bytes, 0u);
  // The same knobs under nop, which cleans only on flush, mode change or close: nothing.
  BenchPolicies nop = eager;
  nop.cleaning = "nop";
  EXPECT_EQ(WbPassHddWrites(nop), (std::vector<uint64_t>{0, 0}));
}

// Loses every read completion: a replay on it can never finish.
class BlackHole final : public DeviceWrapper {
 public:
  using DeviceWrapper::DeviceWrapper;

 protected:
  void read_impl(uint64_t, std::span<std::byte>, IoCallback) override {}
};

TEST(BenchRunnerTest, AStalledReplayIsReportedNotHung) {
  auto driver = LoopDriver::Create(false).value();
  MemoryDevice mem("m", 1 << 20);
  BlackHole hole(mem);
  Trace t;
  t.name = "t";
  t.records = {{TraceOp::kRead, 0, 4096}, {TraceOp::kRead, 4096, 4096, 0}};
  const ReplayStats s = ReplayOnce(*driver, hole, t, 1);
  EXPECT_EQ(s.errors, 1u);
  EXPECT_EQ(s.ops, 0u);
  EXPECT_NE(s.first_error.message().find("stalled"), std::string::npos);
}

TEST(BenchRunnerTest, RejectsUnknownSetupsAndProfiles) {
  BenchConfig config;
  config.setups = {"hdd", "floppy"};
  BenchRunner runner(config, ModelProfiles::Builtin().value());
  EXPECT_EQ(runner.run({}, nullptr).status().code(), Status::Code::kInvalidArgument);
  BenchConfig swapped;
  swapped.hdd_profile = "nvme";
  BenchRunner runner2(swapped, ModelProfiles::Builtin().value());
  EXPECT_EQ(runner2.run({}, nullptr).status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(WorkloadCatalog(CatalogOptions{}).select("boot,nope").status().code(),
            Status::Code::kInvalidArgument);
}

TEST(BenchRunnerTest, CatalogExpandsGroupsInOrderWithoutDuplicates) {
  auto w = WorkloadCatalog(CatalogOptions{}).select("boot,cdm,boot,cdm:RND4K-Q1T1-read");
  ASSERT_TRUE(w.ok());
  ASSERT_EQ(w->size(), 9u);
  EXPECT_EQ((*w)[0].name, "boot");
  EXPECT_EQ((*w)[0].metric, "seconds");
  EXPECT_EQ((*w)[1].name, "cdm:SEQ1M-Q8T1-read");
  EXPECT_EQ((*w)[1].metric, "mb_per_s");
  EXPECT_TRUE((*w)[1].preparation.has_value());
  EXPECT_EQ((*w)[8].name, "cdm:RND4K-Q1T1-write");
  auto large = WorkloadCatalog(CatalogOptions{}).select("cdm-large:RND4K-Q1T1-read");
  ASSERT_TRUE(large.ok());
  EXPECT_EQ((*large)[0].preparation->bytes_written(), CatalogOptions{}.large_area_bytes);
}

}  // namespace
}  // namespace tiercache::bench
