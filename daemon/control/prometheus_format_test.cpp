#include "daemon/control/prometheus_format.h"

#include <gtest/gtest.h>

namespace tiercache {
namespace {

// The lines of an empty histogram of `path` for cache "ssd.img".
std::string Histogram(const std::string& path) {
  const std::string labels = "cache=\"ssd.img\",path=\"" + path + "\"";
  std::string text;
  for (const char* le : {"0.00001", "0.000025", "0.00005", "0.0001", "0.00025", "0.0005", "0.001",
                         "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1",
                         "+Inf"}) {
    text += "tiercache_latency_seconds_bucket{" + labels + ",le=\"" + le + "\"} 0\n";
  }
  return text + "tiercache_latency_seconds_sum{" + labels + "} 0\n" +
         "tiercache_latency_seconds_count{" + labels + "} 0\n";
}

// The full exposition for a small reply: given counters by value, absent ones as 0, policy
// counters in the reply's order, a non-numeric policy counter and a non-object policy skipped.
TEST(PrometheusFormatTest, ExactExposition) {
  ControlJson stats = ControlJson::parse(R"({
    "read_hits":7,"read_partial_hits":1,"read_misses":2,"write_misses":3,"write_bypasses":4,
    "read_hit_bytes":28672,"write_miss_bytes":12288,"bytes_read_ssd":32768,
    "bytes_written_core":4096,"lines_total":16,"lines_used":5,"lines_dirty":2,
    "dirty_sectors":9,"errors":1,"cache_name":"ssd.img","health":"degraded",
    "oldest_dirty_age_ms":1500,"ssd_persist_errors":6,"unknown_counter":5,
    "policy_counters":{"admission":{"admitted":5,"refused":0},"replacement":{},
                       "sequential":{"bypassed_read_bytes":8192,"mode":"x"},"bad":3}})");
  EXPECT_EQ(FormatPrometheus(stats),
            "# HELP tiercache_requests_total Client reads and writes by how the cache served them.\n"
            "# TYPE tiercache_requests_total counter\n"
            "tiercache_requests_total{cache=\"ssd.img\",op=\"read\",result=\"hit\"} 7\n"
            "tiercache_requests_total{cache=\"ssd.img\",op=\"read\",result=\"partial_hit\"} 1\n"
            "tiercache_requests_total{cache=\"ssd.img\",op=\"read\",result=\"miss\"} 2\n"
            "tiercache_requests_total{cache=\"ssd.img\",op=\"read\",result=\"bypass\"} 0\n"
            "tiercache_requests_total{cache=\"ssd.img\",op=\"write\",result=\"hit\"} 0\n"
            "tiercache_requests_total{cache=\"ssd.img\",op=\"write\",result=\"miss\"} 3\n"
            "tiercache_requests_total{cache=\"ssd.img\",op=\"write\",result=\"bypass\"} 4\n"
            "# HELP tiercache_request_bytes_total Request bytes found (hit) or not found (miss, "
            "bypasses included) in the cache.\n"
            "# TYPE tiercache_request_bytes_total counter\n"
            "tiercache_request_bytes_total{cache=\"ssd.img\",op=\"read\",result=\"hit\"} 28672\n"
            "tiercache_request_bytes_total{cache=\"ssd.img\",op=\"read\",result=\"miss\"} 0\n"
            "tiercache_request_bytes_total{cache=\"ssd.img\",op=\"write\",result=\"hit\"} 0\n"
            "tiercache_request_bytes_total{cache=\"ssd.img\",op=\"write\",result=\"miss\"} 12288\n"
            "# HELP tiercache_bytes_read_total Bytes read from each device.\n"
            "# TYPE tiercache_bytes_read_total counter\n"
            "tiercache_bytes_read_total{cache=\"ssd.img\",device=\"ssd\"} 32768\n"
            "tiercache_bytes_read_total{cache=\"ssd.img\",device=\"core\"} 0\n"
            "# HELP tiercache_bytes_written_total Bytes written to each device.\n"
            "# TYPE tiercache_bytes_written_total counter\n"
            "tiercache_bytes_written_total{cache=\"ssd.img\",device=\"ssd\"} 0\n"
            "tiercache_bytes_written_total{cache=\"ssd.img\",device=\"core\"} 4096\n"
            "# HELP tiercache_lines_total Cache lines on the SSD.\n"
            "# TYPE tiercache_lines_total gauge\n"
            "tiercache_lines_total{cache=\"ssd.img\"} 16\n"
            "# HELP tiercache_lines_used Cache lines holding data.\n"
            "# TYPE tiercache_lines_used gauge\n"
            "tiercache_lines_used{cache=\"ssd.img\"} 5\n"
            "# HELP tiercache_lines_dirty Cache lines holding data not yet on the core.\n"
            "# TYPE tiercache_lines_dirty gauge\n"
            "tiercache_lines_dirty{cache=\"ssd.img\"} 2\n"
            "# HELP tiercache_dirty_sectors 4096-byte sectors not yet on the core.\n"
            "# TYPE tiercache_dirty_sectors gauge\n"
            "tiercache_dirty_sectors{cache=\"ssd.img\"} 9\n"
            "# HELP tiercache_dirty_bytes Bytes of data not yet on the core.\n"
            "# TYPE tiercache_dirty_bytes gauge\n"
            "tiercache_dirty_bytes{cache=\"ssd.img\"} 36864\n"
            "# HELP tiercache_evictions_total Lines evicted to make room.\n"
            "# TYPE tiercache_evictions_total counter\n"
            "tiercache_evictions_total{cache=\"ssd.img\"} 0\n"
            "# HELP tiercache_cleaner_writes_total Core writes by the cleaner.\n"
            "# TYPE tiercache_cleaner_writes_total counter\n"
            "tiercache_cleaner_writes_total{cache=\"ssd.img\"} 0\n"
            "# HELP tiercache_cleaner_write_errors_total Core writes by the cleaner that failed "
            "(the lines stay dirty).\n"
            "# TYPE tiercache_cleaner_write_errors_total counter\n"
            "tiercache_cleaner_write_errors_total{cache=\"ssd.img\"} 0\n"
            "# HELP tiercache_cleaned_lines_total Dirty lines the cleaner made clean.\n"
            "# TYPE tiercache_cleaned_lines_total counter\n"
            "tiercache_cleaned_lines_total{cache=\"ssd.img\"} 0\n"
            "# HELP tiercache_fill_skipped_bytes_total Read-miss bytes not cached because the SSD "
            "was behind with earlier fills.\n"
            "# TYPE tiercache_fill_skipped_bytes_total counter\n"
            "tiercache_fill_skipped_bytes_total{cache=\"ssd.img\"} 0\n"
            "# HELP tiercache_errors_total Client requests that failed.\n"
            "# TYPE tiercache_errors_total counter\n"
            "tiercache_errors_total{cache=\"ssd.img\"} 1\n"
            "# HELP tiercache_flushes_total Client FLUSH requests.\n"
            "# TYPE tiercache_flushes_total counter\n"
            "tiercache_flushes_total{cache=\"ssd.img\"} 0\n"
            "# HELP tiercache_discards_total Client TRIM requests.\n"
            "# TYPE tiercache_discards_total counter\n"
            "tiercache_discards_total{cache=\"ssd.img\"} 0\n"
            "# HELP tiercache_write_zeroes_total Client WRITE_ZEROES requests.\n"
            "# TYPE tiercache_write_zeroes_total counter\n"
            "tiercache_write_zeroes_total{cache=\"ssd.img\"} 0\n"
            "# HELP tiercache_ssd_errors_total Failed SSD operations by kind.\n"
            "# TYPE tiercache_ssd_errors_total counter\n"
            "tiercache_ssd_errors_total{cache=\"ssd.img\",op=\"read\"} 0\n"
            "tiercache_ssd_errors_total{cache=\"ssd.img\",op=\"write\"} 0\n"
            "tiercache_ssd_errors_total{cache=\"ssd.img\",op=\"persist\"} 6\n"
            "# HELP tiercache_ssd_failovers_total Times the cache took the SSD out of the data "
            "path.\n"
            "# TYPE tiercache_ssd_failovers_total counter\n"
            "tiercache_ssd_failovers_total{cache=\"ssd.img\"} 0\n"
            "# HELP tiercache_oldest_dirty_age_seconds Age of the oldest dirty data (an upper "
            "bound).\n"
            "# TYPE tiercache_oldest_dirty_age_seconds gauge\n"
            "tiercache_oldest_dirty_age_seconds{cache=\"ssd.img\"} 1.5\n"
            "# HELP tiercache_health The SSD's health: 1 for the current state (ok, degraded, "
            "failed), 0 for the others.\n"
            "# TYPE tiercache_health gauge\n"
            "tiercache_health{cache=\"ssd.img\",state=\"ok\"} 0\n"
            "tiercache_health{cache=\"ssd.img\",state=\"degraded\"} 1\n"
            "tiercache_health{cache=\"ssd.img\",state=\"failed\"} 0\n"
            "# HELP tiercache_policy_events_total Counters of the admission, replacement and "
            "sequential policies.\n"
            "# TYPE tiercache_policy_events_total counter\n"
            "tiercache_policy_events_total{cache=\"ssd.img\",policy=\"admission\",name=\"admitted\"} 5\n"
            "tiercache_policy_events_total{cache=\"ssd.img\",policy=\"admission\",name=\"refused\"} 0\n"
            "tiercache_policy_events_total{cache=\"ssd.img\",policy=\"sequential\",name=\"bypassed_read_bytes\"} "
            "8192\n"
            "# HELP tiercache_latency_seconds Client request latency by path: hit (read from the "
            "SSD only), miss (read needing the core), write, flush.\n"
            "# TYPE tiercache_latency_seconds histogram\n"
            + Histogram("hit") + Histogram("miss") + Histogram("write") + Histogram("flush"));
}

// The histogram of a path as a cumulative "le" series, sum in seconds, and count.
TEST(PrometheusFormatTest, LatencyHistogram) {
  LatencySnapshot hit;
  hit.buckets[0] = 2;   // <= 10 us
  hit.buckets[6] = 1;   // (500 us, 1 ms]
  hit.buckets[16] = 1;  // > 1 s
  hit.sum_ns = 2'000'750'000;
  ControlJson stats = ControlJson::object();
  stats["cache_name"] = "c";
  CacheLatency latency;
  latency.hit = hit;
  stats["latency"] = LatencyToJson(latency);
  const std::string text = FormatPrometheus(stats);
  const std::string expected =
      "tiercache_latency_seconds_bucket{cache=\"c\",path=\"hit\",le=\"0.00001\"} 2\n"
      "tiercache_latency_seconds_bucket{cache=\"c\",path=\"hit\",le=\"0.000025\"} 2\n"
      "tiercache_latency_seconds_bucket{cache=\"c\",path=\"hit\",le=\"0.00005\"} 2\n"
      "tiercache_latency_seconds_bucket{cache=\"c\",path=\"hit\",le=\"0.0001\"} 2\n"
      "tiercache_latency_seconds_bucket{cache=\"c\",path=\"hit\",le=\"0.00025\"} 2\n"
      "tiercache_latency_seconds_bucket{cache=\"c\",path=\"hit\",le=\"0.0005\"} 2\n"
      "tiercache_latency_seconds_bucket{cache=\"c\",path=\"hit\",le=\"0.001\"} 3\n"
      "tiercache_latency_seconds_bucket{cache=\"c\",path=\"hit\",le=\"0.0025\"} 3\n"
      "tiercache_latency_seconds_bucket{cache=\"c\",path=\"hit\",le=\"0.005\"} 3\n"
      "tiercache_latency_seconds_bucket{cache=\"c\",path=\"hit\",le=\"0.01\"} 3\n"
      "tiercache_latency_seconds_bucket{cache=\"c\",path=\"hit\",le=\"0.025\"} 3\n"
      "tiercache_latency_seconds_bucket{cache=\"c\",path=\"hit\",le=\"0.05\"} 3\n"
      "tiercache_latency_seconds_bucket{cache=\"c\",path=\"hit\",le=\"0.1\"} 3\n"
      "tiercache_latency_seconds_bucket{cache=\"c\",path=\"hit\",le=\"0.25\"} 3\n"
      "tiercache_latency_seconds_bucket{cache=\"c\",path=\"hit\",le=\"0.5\"} 3\n"
      "tiercache_latency_seconds_bucket{cache=\"c\",path=\"hit\",le=\"1\"} 3\n"
      "tiercache_latency_seconds_bucket{cache=\"c\",path=\"hit\",le=\"+Inf\"} 4\n"
      "tiercache_latency_seconds_sum{cache=\"c\",path=\"hit\"} 2.00075\n"
      "tiercache_latency_seconds_count{cache=\"c\",path=\"hit\"} 4\n"
      "tiercache_latency_seconds_bucket{cache=\"c\",path=\"miss\",le=\"0.00001\"} 0\n";
  EXPECT_NE(text.find(expected), std::string::npos) << text;
  EXPECT_TRUE(text.ends_with("tiercache_latency_seconds_count{cache=\"c\",path=\"flush\"} 0\n"))
      << text;
}

TEST(PrometheusFormatTest, NotAnObjectPrintsZeros) {
  std::string text = FormatPrometheus(ControlJson::array());
  EXPECT_NE(text.find("\ntiercache_lines_used{cache=\"\"} 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\ntiercache_health{cache=\"\",state=\"ok\"} 1\n"), std::string::npos);
  EXPECT_TRUE(text.ends_with("tiercache_latency_seconds_count{cache=\"\",path=\"flush\"} 0\n"))
      << text;
}

}  // namespace
}  // namespace tiercache
