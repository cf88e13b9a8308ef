#include "cachelib/device/models/hdd_geometry.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tiercache {
namespace {

TEST(SeekCurveTest, FitsFullStrokeAndTriangularMean) {
  auto c = SeekCurve::Fit(1.0, 8.5, 16.0);
  ASSERT_TRUE(c.ok());
  EXPECT_DOUBLE_EQ(c->t_ms, 1.0);
  EXPECT_DOUBLE_EQ(c->x_ms, 2.5);
  EXPECT_DOUBLE_EQ(c->y_ms, 12.5);
  EXPECT_DOUBLE_EQ(c->at(1.0), 16.0);
  EXPECT_DOUBLE_EQ(c->at(0.0), 0.0);
  EXPECT_DOUBLE_EQ(c->triangular_mean(), 8.5);
  // The closed form agrees with integrating seek(u) * 2(1-u) numerically (midpoint rule).
  const int n = 200000;
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    const double u = (i + 0.5) / n;
    sum += c->at(u) * 2 * (1 - u) / n;
  }
  EXPECT_NEAR(sum, 8.5, 1e-3);
}

TEST(SeekCurveTest, RejectsTimesThatDoNotFit) {
  EXPECT_EQ(SeekCurve::Fit(1.0, 17.0, 16.0).status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(SeekCurve::Fit(0.0, 8.5, 16.0).status().code(), Status::Code::kInvalidArgument);
  // Average far below full stroke needs a negative sqrt term: not a plausible seek curve.
  EXPECT_EQ(SeekCurve::Fit(1.0, 2.0, 16.0).status().code(), Status::Code::kInvalidArgument);
}

TEST(HddGeometryTest, ZonedRateFallsLinearlyToInnerRatio) {
  HddParams p;
  HddGeometry g(p, 0);
  EXPECT_EQ(g.capacity(), p.capacity_bytes);
  EXPECT_DOUBLE_EQ(g.media_rate(0), 210e6);
  EXPECT_NEAR(g.media_rate(p.capacity_bytes), 126e6, 1);
  EXPECT_NEAR(g.media_rate(p.capacity_bytes / 2), 168e6, 1e3);
  // 1 MiB at the outer edge transfers at ~210 MB/s.
  EXPECT_NEAR(g.transfer_ns(0, 1 << 20), (1 << 20) / 210e6 * 1e9, 10);
  EXPECT_NEAR(g.revolution_ns(), 60e9 / 7200, 1e-6);
}

TEST(HddGeometryTest, AdvanceInvertsTransferAndAnglesAreContinuous) {
  HddParams p;
  HddGeometry g(p, 0);
  const uint64_t x = 123456789ull * 4096;
  const double turns = g.transfer_ns(x, 8 << 20) / g.revolution_ns();
  const uint64_t y = g.advance(x, turns);
  EXPECT_NEAR(static_cast<double>(y), static_cast<double>(x + (8 << 20)), 2.0);
  // After transferring n bytes the angle moved by exactly the turns the transfer took.
  const double moved = g.angle_of(x) + g.transfer_ns(x, 4096) / g.revolution_ns();
  EXPECT_NEAR(moved - std::floor(moved), g.angle_of(x + 4096), 1e-9);
  EXPECT_EQ(g.advance(p.capacity_bytes - 4096, 10.0), p.capacity_bytes);
}

TEST(HddGeometryTest, CylindersAndSeeks) {
  HddParams p;
  HddGeometry g(p, 0);
  // ~1.4 MB tracks on average, two surfaces: a few hundred thousand cylinders.
  EXPECT_GT(g.cylinders(), 200000u);
  EXPECT_LT(g.cylinders(), 500000u);
  EXPECT_EQ(g.cylinder_of(0), 0u);
  EXPECT_EQ(g.cylinder_of(p.capacity_bytes - 1), g.cylinders() - 1);
  EXPECT_EQ(g.seek_ns(5, 5, false), 0.0);
  EXPECT_NEAR(g.seek_ns(0, g.cylinders(), false), 16e6, 1);
  EXPECT_NEAR(g.seek_ns(0, g.cylinders(), true), 17e6, 1);
  EXPECT_NEAR(g.seek_ns(10, 11, false), 1e6, 0.05e6);  // track-to-track
}

TEST(HddGeometryTest, LargerTargetWidensTheDisk) {
  HddParams p;
  p.capacity_bytes = 1ull << 30;
  HddGeometry g(p, 4ull << 30);
  EXPECT_EQ(g.capacity(), 4ull << 30);
}

}  // namespace
}  // namespace tiercache
