#include "policy/cleaning/cleaning_options.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace tiercache {
namespace {

using std::chrono::seconds;

std::string Error(void (*edit)(CleaningOptions&)) {
  CleaningOptions o;
  edit(o);
  Status s = o.validate();
  return s.ok() ? std::string("ok") : s.message();
}

TEST(CleaningOptionsTest, DefaultsAndEdgesAreValid) {
  EXPECT_EQ(Error([](CleaningOptions&) {}), "ok");
  EXPECT_EQ(Error([](CleaningOptions& o) { o.dirty_target = 0; o.dirty_high = 1; }), "ok");
  EXPECT_EQ(Error([](CleaningOptions& o) { o.age_margin = seconds(0); o.busy_share = 1; }), "ok");
  EXPECT_EQ(Error([](CleaningOptions& o) { o.busy_batch_blocks = o.idle_batch_blocks = 1; }),
            "ok");
  EXPECT_EQ(Error([](CleaningOptions& o) { o.idle_batch_blocks = 1 << 20; }), "ok");
  EXPECT_EQ(Error([](CleaningOptions& o) { o.max_write_bytes = 4096; }), "ok");
  EXPECT_EQ(Error([](CleaningOptions& o) { o.max_batch_runs = 1; }), "ok");
  EXPECT_EQ(Error([](CleaningOptions& o) { o.max_batch_runs = 0; }),
            "max_batch_runs must be in [1, 1048576]");
  EXPECT_EQ(Error([](CleaningOptions& o) { o.max_batch_runs = (1 << 20) + 1; }),
            "max_batch_runs must be in [1, 1048576]");
  EXPECT_EQ(Error([](CleaningOptions& o) { o.max_write_bytes = 64 << 20; }), "ok");
  EXPECT_EQ(Error([](CleaningOptions& o) { o.writes_in_flight = 1; }), "ok");
  EXPECT_EQ(Error([](CleaningOptions& o) { o.writes_in_flight = 1024; }), "ok");
  EXPECT_EQ(Error([](CleaningOptions& o) { o.writes_in_flight = 0; }),
            "writes_in_flight must be in [1, 1024]");
  EXPECT_EQ(Error([](CleaningOptions& o) { o.writes_in_flight = 1025; }),
            "writes_in_flight must be in [1, 1024]");
}

TEST(CleaningOptionsTest, ValidateNamesTheBadField) {
  EXPECT_EQ(Error([](CleaningOptions& o) { o.dirty_high = 0; }), "dirty_high must be in (0, 1]");
  EXPECT_EQ(Error([](CleaningOptions& o) { o.dirty_high = 1.5; }), "dirty_high must be in (0, 1]");
  EXPECT_EQ(Error([](CleaningOptions& o) { o.dirty_high = NAN; }), "dirty_high must be in (0, 1]");
  EXPECT_EQ(Error([](CleaningOptions& o) { o.dirty_target = -0.1; }),
            "dirty_target must be in [0, dirty_high)");
  EXPECT_EQ(Error([](CleaningOptions& o) { o.dirty_target = 0.5; }),
            "dirty_target must be in [0, dirty_high)");
  EXPECT_EQ(Error([](CleaningOptions& o) { o.dirty_target = NAN; }),
            "dirty_target must be in [0, dirty_high)");
  EXPECT_EQ(Error([](CleaningOptions& o) { o.max_dirty_age = seconds(0); }),
            "max_dirty_age must be > 0");
  EXPECT_EQ(Error([](CleaningOptions& o) { o.age_margin = seconds(30); }),
            "age_margin must be in [0, max_dirty_age)");
  EXPECT_EQ(Error([](CleaningOptions& o) { o.age_margin = seconds(-1); }),
            "age_margin must be in [0, max_dirty_age)");
  EXPECT_EQ(Error([](CleaningOptions& o) { o.busy_share = 0; }), "busy_share must be in (0, 1]");
  EXPECT_EQ(Error([](CleaningOptions& o) { o.busy_share = 1.01; }),
            "busy_share must be in (0, 1]");
  EXPECT_EQ(Error([](CleaningOptions& o) { o.idle_after = seconds(0); }),
            "idle_after must be > 0");
  EXPECT_EQ(Error([](CleaningOptions& o) { o.busy_batch_blocks = 0; }),
            "busy_batch_blocks must be in [1, 1048576]");
  EXPECT_EQ(Error([](CleaningOptions& o) { o.busy_batch_blocks = (1 << 20) + 1; }),
            "busy_batch_blocks must be in [1, 1048576]");
  EXPECT_EQ(Error([](CleaningOptions& o) { o.idle_batch_blocks = 63; }),
            "idle_batch_blocks must be in [busy_batch_blocks, 1048576]");
  EXPECT_EQ(Error([](CleaningOptions& o) { o.idle_batch_blocks = (1 << 20) + 1; }),
            "idle_batch_blocks must be in [busy_batch_blocks, 1048576]");
  for (uint64_t bad : {uint64_t{0}, uint64_t{4095}, uint64_t{6144}, (uint64_t{64} << 20) + 4096}) {
    CleaningOptions o;
    o.max_write_bytes = bad;
    EXPECT_EQ(o.validate().message(),
              "max_write_bytes must be a multiple of 4096 in [4096, 67108864]")
        << bad;
  }
}

TEST(CleaningOptionsTest, DescribesTheOperatorKnobs) {
  EXPECT_EQ(CleaningOptions{}.describe(),
            "dirty target 20%, high 50%, max age 30 s, busy share 10%, idle after 1 s");
  CleaningOptions o;
  o.dirty_target = 0.05;
  o.dirty_high = 0.925;
  o.max_dirty_age = std::chrono::milliseconds(1500);
  o.busy_share = 1;
  o.idle_after = std::chrono::milliseconds(10);
  EXPECT_EQ(o.describe(),
            "dirty target 5%, high 92.5%, max age 1.5 s, busy share 100%, idle after 0.01 s");
}

}  // namespace
}  // namespace tiercache
