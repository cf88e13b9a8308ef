#include <gtest/gtest.h>

#include <chrono>

#include <nlohmann/json.hpp>

#include "bench/runner/position_chart.h"
#include "bench/runner/report_html.h"
#include "bench/runner/report_json.h"
#include "bench/runner/report_text.h"

namespace tiercache::bench {
namespace {

BenchResults Sample() {
  BenchResults r;
  r.mode = "virtual";
  r.passes = 2;
  r.seed = 9;
  r.hdd_profile = "hdd7200";
  r.ssd_profile = "sata-ssd";
  r.cache_bytes = 2000000000;
  PassResult slow, fast;
  slow.seconds = 40;
  slow.mb_per_s = 7.5;
  slow.iops = 200;
  fast.seconds = 8;
  fast.mb_per_s = 37.5;
  fast.iops = 1000;
  PassResult cold = slow, warm = fast;
  cold.hit_ratio = 0.0;
  warm.hit_ratio = 0.995;
  warm.ssd_bytes_written = 1500;
  cold.ssd_bytes_written = 300000000;
  WorkloadResult boot{"boot", "seconds", "OS boot <&>", {}};
  boot.setups = {{"hdd", {slow, slow}, ""}, {"wt", {cold, warm}, ""},
                 {"wb", {}, "NotSupported: no engine"}};
  WorkloadResult seq{"cdm:SEQ1M-Q8T1-read", "mb_per_s", "", {}};
  seq.setups = {{"hdd", {slow, slow}, ""}, {"ssd", {fast, fast}, ""}};
  r.workloads = {boot, seq};
  return r;
}

PassResult Curve(std::vector<double> rates) {
  PassResult p;
  for (size_t k = 0; k < rates.size(); ++k) p.positions.push_back({k * 4000000, rates[k]});
  p.mb_per_s = rates[0];
  return p;
}

// hdtune, 2 passes of 3 positions; wb failed.
BenchResults HdTuneSample() {
  BenchResults r = Sample();
  r.policies.admission = "s3fifo";
  r.policies.seq_cutoff_bytes = 4 << 20;
  r.policies.cleaning = "nop";
  r.policies.cleaning_options.emplace().dirty_high = 0.75;
  r.policies.cleaning_options->max_dirty_age = std::chrono::milliseconds(2500);
  WorkloadResult w{"hdtune", "mb_per_s", "HD Tune", {}};
  w.setups = {{"hdd", {Curve({150, 200, 210}), Curve({180, 200, 210})}, ""},
              {"ssd", {Curve({500, 500, 500}), Curve({500, 500, 500})}, ""},
              {"wt", {Curve({150, 190, 210}), Curve({500, 480, 500})}, ""},
              {"wb", {}, "NotSupported: no engine"}};
  r.workloads = {w};
  return r;
}

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(ReportTest, JsonHasTheScriptShape) {
  auto doc = nlohmann::json::parse(ToJsonText(Sample()));
  ASSERT_TRUE(doc["workloads"].is_array());
  ASSERT_EQ(doc["workloads"].size(), 2u);
  const auto& boot = doc["workloads"][0];
  EXPECT_EQ(boot["name"], "boot");
  EXPECT_EQ(boot["metric"], "seconds");
  ASSERT_EQ(boot["setups"].size(), 3u);
  const auto& wt = boot["setups"][1];
  EXPECT_EQ(wt["name"], "wt");
  ASSERT_EQ(wt["passes"].size(), 2u);
  const auto& p2 = wt["passes"][1];
  EXPECT_EQ(p2["seconds"], 8.0);
  EXPECT_EQ(p2["mb_per_s"], 37.5);
  EXPECT_EQ(p2["iops"], 1000.0);
  EXPECT_EQ(p2["hit_ratio"], 0.995);
  EXPECT_EQ(p2["ssd_bytes_written"], 1500u);
  EXPECT_EQ(wt["speedup_vs_hdd"], 5.0);
  // No cache, no hit ratio.
  EXPECT_TRUE(boot["setups"][0]["passes"][0]["hit_ratio"].is_null());
  EXPECT_EQ(boot["setups"][2]["error"], "NotSupported: no engine");
  EXPECT_EQ(doc["workloads"][1]["name"], "cdm:SEQ1M-Q8T1-read");
  EXPECT_EQ(doc["workloads"][1]["setups"][1]["speedup_vs_hdd"], 5.0);
  EXPECT_EQ(doc["passes"], 2);
  EXPECT_EQ(doc["mode"], "virtual");
  // Only hdtune passes have positions; unset policies are the engine's defaults.
  EXPECT_FALSE(p2.contains("positions"));
  EXPECT_TRUE(doc["admission"].is_null());
  EXPECT_TRUE(doc["replacement"].is_null());
  EXPECT_TRUE(doc["seq_cutoff_bytes"].is_null());
  EXPECT_TRUE(doc["cleaning"].is_null());
  EXPECT_TRUE(doc["cleaning_options"].is_null());
  EXPECT_FALSE(doc.contains("policies_applied"));
}

TEST(ReportTest, JsonHasHdTunePositionsPerPass) {
  auto doc = nlohmann::json::parse(ToJsonText(HdTuneSample()));
  const auto& wt = doc["workloads"][0]["setups"][2];
  ASSERT_EQ(wt["name"], "wt");
  ASSERT_EQ(wt["passes"].size(), 2u);
  EXPECT_EQ(wt["passes"][0]["positions"], nlohmann::json::parse(R"([
      {"offset": 0, "mb_per_s": 150.0},
      {"offset": 4000000, "mb_per_s": 190.0},
      {"offset": 8000000, "mb_per_s": 210.0}])"));
  EXPECT_EQ(wt["passes"][1]["positions"][1], nlohmann::json::parse(R"({"offset": 4000000,
      "mb_per_s": 480.0})"));
  // Exactly these two keys per position.
  EXPECT_EQ(wt["passes"][1]["positions"][2].dump(), R"({"mb_per_s":500.0,"offset":8000000})");
  EXPECT_EQ(doc["admission"], "s3fifo");
  EXPECT_TRUE(doc["replacement"].is_null());
  EXPECT_EQ(doc["seq_cutoff_bytes"], 4u << 20);
  EXPECT_EQ(doc["cleaning"], "nop");
  EXPECT_EQ(doc["cleaning_options"], nlohmann::json::parse(R"({"dirty_target": 0.2,
      "dirty_high": 0.75, "max_dirty_age_ms": 2500, "busy_share": 0.1, "idle_after_ms": 1000})"));
}

TEST(ReportTest, TextTableShowsPassesSpeedupHitRatioAndSsdWrites) {
  const std::string t = FormatTextReport(Sample());
  EXPECT_NE(t.find("== boot  (seconds, lower is better)"), std::string::npos) << t;
  EXPECT_NE(t.find("wt               40.00     8.000    5.00x   99.5%       300 MB"), std::string::npos)
      << t;
  EXPECT_NE(t.find("hdd              40.00     40.00    1.00x       -"), std::string::npos) << t;
  EXPECT_NE(t.find("wb            error: NotSupported: no engine"), std::string::npos) << t;
  EXPECT_NE(t.find("== cdm:SEQ1M-Q8T1-read  (MB/s, higher is better)"), std::string::npos) << t;
  EXPECT_NE(t.find("wt/wb engine policies: admission default, replacement default, seq cutoff "
                   "default, cleaning default\n"),
            std::string::npos)
      << t;
  EXPECT_EQ(t.find("positions"), std::string::npos) << t;
}

TEST(ReportTest, TextShowsHdTunePositionsAndTheRatioView) {
  const std::string t = FormatTextReport(HdTuneSample());
  EXPECT_NE(t.find("wt/wb engine policies: admission s3fifo, replacement default, seq cutoff "
                   "4194304 B, cleaning nop (dirty target 20%, high 75%, max age 2.5 s, busy "
                   "share 10%, idle after 1 s)\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("  hdd       positions MB/s: min 150.0, avg 191.7, max 210.0\n"),
            std::string::npos)
      << t;
  // wt's worst: 190 / 200 at the second position (3.8 MiB) in pass 1.
  EXPECT_NE(t.find("  wt        positions MB/s: min 150.0, avg 338.3, max 500.0; worst vs hdd "
                   "0.950x at 3.8 MiB in pass 1\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("  ssd       positions MB/s: min 500.0, avg 500.0, max 500.0; worst vs hdd "
                   "2.381x at 7.6 MiB in pass 1\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("hdtune: lowest setup/hdd MB/s over the positions, per pass (target >= 0.95)\n"
                   "  wt             0.950     2.381  worst   0.950  ok\n\n"),
            std::string::npos)
      << t;
}

TEST(ReportTest, PositionChartHasOnePolylinePerSetupWithOnePointPerPosition) {
  const BenchResults r = HdTuneSample();
  const std::string svg = PositionChart(r.workloads[0], 1);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  // hdd, ssd and wt; wb failed and has no line.
  ASSERT_EQ(Count(svg, "<polyline"), 3u);
  size_t at = 0;
  for (const char* color : {"#8c8c8c", "#2f7ed8", "#f28f43"}) {
    at = svg.find("<polyline", at + 1);
    const size_t open = svg.find("points='", at) + 8, close = svg.find("'", open);
    const std::string points = svg.substr(open, close - open);
    EXPECT_EQ(Count(points, ","), 3u) << points;
    EXPECT_EQ(Count(points, " "), 2u) << points;
    EXPECT_NE(svg.substr(at, open - at).find(color), std::string::npos) << color;
  }
  // x from the first offset to the last, y from 0 to the pass's highest rate (500 MB/s):
  // wt's pass 2 runs 500, 480, 500.
  EXPECT_NE(svg.find("points='60.0,10.0 370.0,18.0 680.0,10.0'"), std::string::npos) << svg;
  EXPECT_EQ(PositionChart(r.workloads[0], 2), "");  // no such pass
  EXPECT_EQ(PositionChart(Sample().workloads[0], 0), "");  // boot has no positions
}

TEST(ReportTest, HtmlHasHdTuneChartsAndTheRatioTable) {
  const std::string h = ToHtml(HdTuneSample());
  EXPECT_EQ(Count(h, "<polyline"), 6u);  // pass 1 and pass 2, three setups each
  EXPECT_NE(h.find("MB/s per position, pass 1 (cold)"), std::string::npos);
  EXPECT_NE(h.find("MB/s per position, pass 2 (warm)"), std::string::npos);
  EXPECT_NE(h.find("<td>worst 0.950</td><td class='ok'>ok</td>"), std::string::npos) << h;
  EXPECT_NE(h.find("admission s3fifo"), std::string::npos);
  EXPECT_EQ(ToHtml(Sample()).find("<polyline"), std::string::npos);
}

TEST(ReportTest, HtmlIsSelfContainedWithSvgCharts) {
  const std::string h = ToHtml(Sample());
  EXPECT_EQ(h.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(h.find("<svg"), std::string::npos);
  EXPECT_NE(h.find("OS boot &lt;&amp;&gt;"), std::string::npos);
  EXPECT_EQ(h.find("<script"), std::string::npos);
  EXPECT_EQ(h.find("<link"), std::string::npos);
  EXPECT_EQ(h.find("src="), std::string::npos);
  // The only URL is the SVG namespace.
  size_t urls = 0;
  for (size_t p = h.find("http"); p != std::string::npos; p = h.find("http", p + 1)) {
    EXPECT_EQ(h.compare(p, 26, "http://www.w3.org/2000/svg"), 0);
    ++urls;
  }
  EXPECT_GE(urls, 3u);  // summary + two workloads
  EXPECT_NE(h.find("wt 5.00x"), std::string::npos);
}

}  // namespace
}  // namespace tiercache::bench
