#include "cachelib/device/models/hdd_geometry.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace tiercache {
namespace {

constexpr double kFlat = 1e-12;  // below this slope the zones are treated as one

}  // namespace

HddGeometry::HddGeometry(const HddParams& params, uint64_t capacity)
    : capacity_(std::max(capacity, params.capacity_bytes)),
      surfaces_(params.surfaces),
      rev_ns_(60e9 / params.rpm),
      outer_bps_(params.outer_mb_s * 1e6),
      slope_(1.0 - params.inner_ratio) {
  const double rev_s = rev_ns_ / 1e9;
  const double s = static_cast<double>(capacity_);
  tracks_scale_ = slope_ > kFlat ? s / (slope_ * outer_bps_ * rev_s) : 1.0 / (outer_bps_ * rev_s);
  cylinders_ = static_cast<uint64_t>(std::ceil(tracks_at(capacity_) / surfaces_));
  if (cylinders_ == 0) cylinders_ = 1;
  auto read = SeekCurve::Fit(params.track_to_track_read_ms, params.avg_seek_read_ms,
                             params.full_stroke_read_ms);
  auto write = SeekCurve::Fit(params.track_to_track_write_ms, params.avg_seek_write_ms,
                              params.full_stroke_write_ms);
  assert(read.ok() && write.ok() && "validate() the params first");
  if (read.ok()) read_seek_ = read.value();
  if (write.ok()) write_seek_ = write.value();
}

double HddGeometry::tracks_at(uint64_t x) const {
  const double xd = static_cast<double>(std::min(x, capacity_));
  if (slope_ <= kFlat) return xd * tracks_scale_;
  return -tracks_scale_ * std::log1p(-slope_ * xd / static_cast<double>(capacity_));
}

double HddGeometry::angle_of(uint64_t x) const {
  const double tr = tracks_at(x);
  return tr - std::floor(tr);
}

uint64_t HddGeometry::cylinder_of(uint64_t x) const {
  return std::min<uint64_t>(static_cast<uint64_t>(tracks_at(x) / surfaces_), cylinders_ - 1);
}

double HddGeometry::media_rate(uint64_t x) const {
  const double xd = static_cast<double>(std::min(x, capacity_));
  return outer_bps_ * (1.0 - slope_ * xd / static_cast<double>(capacity_));
}

uint64_t HddGeometry::advance(uint64_t x, double turns) const {
  const double target = tracks_at(x) + std::max(0.0, turns);
  const double s = static_cast<double>(capacity_);
  double xd;
  if (slope_ <= kFlat) {
    xd = target / tracks_scale_;
  } else {
    xd = s / slope_ * -std::expm1(-target / tracks_scale_);
  }
  if (!(xd < s)) return capacity_;
  return std::max(x, static_cast<uint64_t>(xd));
}

double HddGeometry::seek_ns(uint64_t from_cyl, uint64_t to_cyl, bool write) const {
  if (from_cyl == to_cyl) return 0;
  const uint64_t d = from_cyl > to_cyl ? from_cyl - to_cyl : to_cyl - from_cyl;
  const double u = static_cast<double>(d) / static_cast<double>(cylinders_);
  return (write ? write_seek_ : read_seek_).at(std::min(u, 1.0)) * 1e6;
}

double HddGeometry::transfer_ns(uint64_t x, uint64_t len) const {
  return (tracks_at(x + len) - tracks_at(x)) * rev_ns_;
}

}  // namespace tiercache
