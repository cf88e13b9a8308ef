#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

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
}

TEST(ReportTest, TextTableShowsPassesSpeedupHitRatioAndSsdWrites) {
  const std::string t = FormatTextReport(Sample());
  EXPECT_NE(t.find("== boot  (seconds, lower is better)"), std::string::npos) << t;
  EXPECT_NE(t.find("wt               40.00     8.000    5.00x   99.5%       300 MB"), std::string::npos)
      << t;
  EXPECT_NE(t.find("hdd              40.00     40.00    1.00x       -"), std::string::npos) << t;
  EXPECT_NE(t.find("wb            error: NotSupported: no engine"), std::string::npos) << t;
  EXPECT_NE(t.find("== cdm:SEQ1M-Q8T1-read  (MB/s, higher is better)"), std::string::npos) << t;
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
