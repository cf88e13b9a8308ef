#include "bench/runner/ratio_view.h"

#include <gtest/gtest.h>

namespace tiercache::bench {
namespace {

PassResult Positions(std::vector<double> rates) {
  PassResult p;
  for (size_t k = 0; k < rates.size(); ++k) p.positions.push_back({k << 20, rates[k]});
  return p;
}

PassResult Written(uint64_t bytes, uint64_t ssd) {
  PassResult p;
  p.bytes_written = bytes;
  p.ssd_bytes_written = ssd;
  p.hit_ratio = 0.0;  // a setup with cache counters
  return p;
}

PassResult Seconds(double s, uint64_t ssd) {
  PassResult p;
  p.seconds = s;
  p.ssd_bytes_written = ssd;
  return p;
}

BenchResults MadeUp() {
  BenchResults r;
  r.passes = 2;
  WorkloadResult hdtune{"hdtune", "mb_per_s", "", {}};
  hdtune.setups = {
      {"hdd", {Positions({200, 200, 200, 200}), Positions({200, 190, 200, 210})}, ""},
      {"ssd", {Positions({500, 500, 500, 500}), Positions({500, 500, 500, 500})}, ""},
      {"wt", {Positions({200, 150, 200, 200}), Positions({200, 190, 200, 210})}, ""},
      // 190 / 200 is exactly the target: met.
      {"wb", {Positions({190, 200, 400, 200}), Positions({400, 400, 400, 400})}, ""}};
  WorkloadResult seq{"cdm:SEQ1M-Q8T1-write", "mb_per_s", "", {}};
  seq.setups = {{"hdd", {Written(1000000, 0), Written(1000000, 0)}, ""},
                {"wt", {Written(1000000, 1000000), Written(1000000, 1000000)}, ""},
                {"wb", {Written(1000000, 50000), Written(1000000, 10000)}, ""}};
  WorkloadResult rnd{"cdm:RND4K-Q1T1-write", "mb_per_s", "", {}};  // no target: no rows
  rnd.setups = {{"wt", {Written(4096, 4096)}, ""}};
  WorkloadResult boot{"boot", "seconds", "", {}};
  boot.setups = {{"hdd", {Seconds(40, 0), Seconds(40, 0)}, ""},
                 {"wt", {Seconds(38, 300000000), Seconds(8, 1500)}, ""},
                 {"wb", {Seconds(36, 310000000), Seconds(12, 0)}, ""},
                 {"wx", {}, "NotSupported: no engine"}};  // failed setups have no row
  WorkloadResult large{"cdm-large:SEQ1M-Q1T1-write", "mb_per_s", "", {}};
  large.setups = {{"wb", {Written(0, 0), Written(1000000, 0)}, ""}};  // nothing written in pass 1
  r.workloads = {hdtune, seq, rnd, boot, large};
  return r;
}

// nbdkit-cache (--realtime) has no cache counters: its SSD share is not a figure ("-", n/a, not
// "0.0% ok"), and its longer name keeps the columns aligned.
TEST(RatioViewTest, ASetupWithoutCacheCountersHasNoSsdShare) {
  BenchResults r;
  r.passes = 2;
  PassResult uncounted;
  uncounted.bytes_written = 1000000;
  WorkloadResult seq{"cdm:SEQ1M-Q8T1-write", "mb_per_s", "", {}};
  seq.setups = {{"wt", {Written(1000000, 10000), Written(1000000, 10000)}, ""},
                {"nbdkit-cache", {uncounted, uncounted}, ""}};
  r.workloads = {seq};
  const auto rows = ComputeRatioView(r);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].per_pass, (std::vector<std::optional<double>>{std::nullopt, std::nullopt}));
  EXPECT_EQ(RatioVerdict(rows[1]), "n/a");
  EXPECT_EQ(FormatRatioView(rows, 2),
            "== targets: cached setups against the bare HDD (printed figures, not assertions)\n"
            "cdm:SEQ1M-Q8T1-write: SSD bytes written / bytes written, per pass (target <= 5%)\n"
            "  wt                  1.0%      1.0%  worst    1.0%  ok\n"
            "  nbdkit-cache           -         -  worst       -  n/a\n\n");
}

TEST(RatioViewTest, FiguresPerPassAndAgainstTheTargets) {
  const auto rows = ComputeRatioView(MadeUp());
  ASSERT_EQ(rows.size(), 7u);
  EXPECT_EQ(rows[0].kind, RatioKind::kHdTuneWorstPosition);
  EXPECT_EQ(rows[0].setup, "wt");
  EXPECT_EQ(rows[0].per_pass, (std::vector<std::optional<double>>{0.75, 1.0}));
  EXPECT_EQ(rows[0].figure, 0.75);
  EXPECT_FALSE(rows[0].met);
  EXPECT_EQ(rows[1].per_pass, (std::vector<std::optional<double>>{0.95, 400.0 / 210}));
  EXPECT_EQ(rows[1].figure, 0.95);
  EXPECT_TRUE(rows[1].met);
  EXPECT_EQ(rows[2].kind, RatioKind::kSeqWriteSsdShare);
  EXPECT_EQ(rows[2].figure, 1.0);
  EXPECT_FALSE(rows[2].met);
  EXPECT_EQ(rows[3].per_pass, (std::vector<std::optional<double>>{0.05, 0.01}));
  EXPECT_TRUE(rows[3].met);
  EXPECT_EQ(rows[4].kind, RatioKind::kWarmSpeedup);
  EXPECT_EQ(rows[4].figure, 5.0);
  EXPECT_EQ(rows[4].ssd_bytes_written, (std::vector<uint64_t>{300000000, 1500}));
  EXPECT_TRUE(rows[4].met);
  EXPECT_FALSE(rows[5].met);  // 40 / 12
  EXPECT_EQ(rows[6].workload, "cdm-large:SEQ1M-Q1T1-write");
  EXPECT_EQ(rows[6].figure, std::nullopt);
  EXPECT_EQ(RatioVerdict(rows[6]), "n/a");
}

TEST(RatioViewTest, WorstPositionNamesWhere) {
  const BenchResults r = MadeUp();
  const WorkloadResult& w = r.workloads[0];
  const auto worst = WorstPositionRatio(w, *w.setup("wt"), 0);
  ASSERT_TRUE(worst.has_value());
  EXPECT_EQ(worst->ratio, 0.75);
  EXPECT_EQ(worst->offset, 1u << 20);
  EXPECT_FALSE(WorstPositionRatio(w, *w.setup("wt"), 2).has_value());  // no such pass
  EXPECT_FALSE(WorstPositionRatio(r.workloads[1], *r.workloads[1].setup("wt"), 0).has_value());
}

TEST(RatioViewTest, TextLinesAreExact) {
  const std::string text = FormatRatioView(ComputeRatioView(MadeUp()), 2);
  EXPECT_EQ(text,
            "== targets: cached setups against the bare HDD (printed figures, not assertions)\n"
            "hdtune: lowest setup/hdd MB/s over the positions, per pass (target >= 0.95)\n"
            "  wt             0.750     1.000  worst   0.750  MISSED\n"
            "  wb             0.950     1.905  worst   0.950  ok\n"
            "cdm:SEQ1M-Q8T1-write: SSD bytes written / bytes written, per pass (target <= 5%)\n"
            "  wt            100.0%    100.0%  worst  100.0%  MISSED\n"
            "  wb              5.0%      1.0%  worst    5.0%  ok\n"
            "boot: SSD bytes written per pass; warm speed-up vs hdd (target >= 4x)\n"
            "  wt            300 MB    1.5 kB  warm    5.00x  ok\n"
            "  wb            310 MB       0 B  warm    3.33x  MISSED\n"
            "cdm-large:SEQ1M-Q1T1-write: SSD bytes written / bytes written, per pass (target <= "
            "5%)\n"
            "  wb                 -      0.0%  worst       -  n/a\n"
            "\n");
  EXPECT_EQ(FormatRatioView({}, 2), "");
}

}  // namespace
}  // namespace tiercache::bench
