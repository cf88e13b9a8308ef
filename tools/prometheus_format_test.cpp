#include "tools/prometheus_format.h"

#include <gtest/gtest.h>

namespace tiercache {
namespace {

// The full exposition for a small reply: given counters by value, absent ones as 0, policy
// counters in the reply's order, a non-numeric policy counter and a non-object policy skipped.
TEST(PrometheusFormatTest, ExactExposition) {
  ControlJson stats = ControlJson::parse(R"({
    "read_hits":7,"read_partial_hits":1,"read_misses":2,"write_misses":3,"write_bypasses":4,
    "read_hit_bytes":28672,"write_miss_bytes":12288,"bytes_read_ssd":32768,
    "bytes_written_core":4096,"lines_total":16,"lines_used":5,"lines_dirty":2,
    "dirty_sectors":9,"errors":1,"ssd_persist_errors":6,"unknown_counter":5,
    "policy_counters":{"admission":{"admitted":5,"refused":0},"replacement":{},
                       "sequential":{"bypassed_read_bytes":8192,"mode":"x"},"bad":3}})");
  EXPECT_EQ(FormatPrometheus(stats),
            "# HELP tiercache_requests_total Client reads and writes by how the cache served them.\n"
            "# TYPE tiercache_requests_total counter\n"
            "tiercache_requests_total{op=\"read\",result=\"hit\"} 7\n"
            "tiercache_requests_total{op=\"read\",result=\"partial_hit\"} 1\n"
            "tiercache_requests_total{op=\"read\",result=\"miss\"} 2\n"
            "tiercache_requests_total{op=\"read\",result=\"bypass\"} 0\n"
            "tiercache_requests_total{op=\"write\",result=\"hit\"} 0\n"
            "tiercache_requests_total{op=\"write\",result=\"miss\"} 3\n"
            "tiercache_requests_total{op=\"write\",result=\"bypass\"} 4\n"
            "# HELP tiercache_request_bytes_total Request bytes found (hit) or not found (miss, "
            "bypasses included) in the cache.\n"
            "# TYPE tiercache_request_bytes_total counter\n"
            "tiercache_request_bytes_total{op=\"read\",result=\"hit\"} 28672\n"
            "tiercache_request_bytes_total{op=\"read\",result=\"miss\"} 0\n"
            "tiercache_request_bytes_total{op=\"write\",result=\"hit\"} 0\n"
            "tiercache_request_bytes_total{op=\"write\",result=\"miss\"} 12288\n"
            "# HELP tiercache_bytes_read_total Bytes read from each device.\n"
            "# TYPE tiercache_bytes_read_total counter\n"
            "tiercache_bytes_read_total{device=\"ssd\"} 32768\n"
            "tiercache_bytes_read_total{device=\"core\"} 0\n"
            "# HELP tiercache_bytes_written_total Bytes written to each device.\n"
            "# TYPE tiercache_bytes_written_total counter\n"
            "tiercache_bytes_written_total{device=\"ssd\"} 0\n"
            "tiercache_bytes_written_total{device=\"core\"} 4096\n"
            "# HELP tiercache_lines_total Cache lines on the SSD.\n"
            "# TYPE tiercache_lines_total gauge\n"
            "tiercache_lines_total 16\n"
            "# HELP tiercache_lines_used Cache lines holding data.\n"
            "# TYPE tiercache_lines_used gauge\n"
            "tiercache_lines_used 5\n"
            "# HELP tiercache_lines_dirty Cache lines holding data not yet on the core.\n"
            "# TYPE tiercache_lines_dirty gauge\n"
            "tiercache_lines_dirty 2\n"
            "# HELP tiercache_dirty_sectors 512-byte sectors not yet on the core.\n"
            "# TYPE tiercache_dirty_sectors gauge\n"
            "tiercache_dirty_sectors 9\n"
            "# HELP tiercache_evictions_total Lines evicted to make room.\n"
            "# TYPE tiercache_evictions_total counter\n"
            "tiercache_evictions_total 0\n"
            "# HELP tiercache_cleaner_writes_total Core writes by the cleaner.\n"
            "# TYPE tiercache_cleaner_writes_total counter\n"
            "tiercache_cleaner_writes_total 0\n"
            "# HELP tiercache_cleaned_lines_total Dirty lines the cleaner made clean.\n"
            "# TYPE tiercache_cleaned_lines_total counter\n"
            "tiercache_cleaned_lines_total 0\n"
            "# HELP tiercache_errors_total Client requests that failed.\n"
            "# TYPE tiercache_errors_total counter\n"
            "tiercache_errors_total 1\n"
            "# HELP tiercache_flushes_total Client FLUSH requests.\n"
            "# TYPE tiercache_flushes_total counter\n"
            "tiercache_flushes_total 0\n"
            "# HELP tiercache_discards_total Client TRIM requests.\n"
            "# TYPE tiercache_discards_total counter\n"
            "tiercache_discards_total 0\n"
            "# HELP tiercache_write_zeroes_total Client WRITE_ZEROES requests.\n"
            "# TYPE tiercache_write_zeroes_total counter\n"
            "tiercache_write_zeroes_total 0\n"
            "# HELP tiercache_ssd_errors_total Failed SSD operations by kind.\n"
            "# TYPE tiercache_ssd_errors_total counter\n"
            "tiercache_ssd_errors_total{op=\"read\"} 0\n"
            "tiercache_ssd_errors_total{op=\"write\"} 0\n"
            "tiercache_ssd_errors_total{op=\"persist\"} 6\n"
            "# HELP tiercache_ssd_failovers_total Times the cache took the SSD out of the data "
            "path.\n"
            "# TYPE tiercache_ssd_failovers_total counter\n"
            "tiercache_ssd_failovers_total 0\n"
            "# HELP tiercache_policy_events_total Counters of the admission, replacement and "
            "sequential policies.\n"
            "# TYPE tiercache_policy_events_total counter\n"
            "tiercache_policy_events_total{policy=\"admission\",name=\"admitted\"} 5\n"
            "tiercache_policy_events_total{policy=\"admission\",name=\"refused\"} 0\n"
            "tiercache_policy_events_total{policy=\"sequential\",name=\"bypassed_read_bytes\"} "
            "8192\n");
}

TEST(PrometheusFormatTest, NotAnObjectPrintsZeros) {
  std::string text = FormatPrometheus(ControlJson::array());
  EXPECT_NE(text.find("\ntiercache_lines_used 0\n"), std::string::npos) << text;
  EXPECT_EQ(text.substr(text.size() - 45), "# TYPE tiercache_policy_events_total counter\n");
}

}  // namespace
}  // namespace tiercache
