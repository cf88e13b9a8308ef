// HddGeometry: where a byte lives on a modelled platter and how long the mechanics take to reach
// and read it. Pure functions of HddParams; immutable after construction, so thread-safe.
//
// Zoned recording: the media rate falls linearly with the byte address x, from R at x = 0 to
// inner_ratio * R at the capacity S. A track holds rate(x) * T bytes (T = one turn), so the number of
// tracks before x is  tracks(x) = -(S / (a R T)) ln(1 - a x / S)  with a = 1 - inner_ratio.
// A byte's angular position is frac(tracks(x)) turns; its cylinder is floor(tracks(x) / surfaces).
// Reading [x, x + n) takes exactly (tracks(x + n) - tracks(x)) turns, so a transfer ends with the
// platter at the angle of its last byte and a back-to-back continuation needs no rotational wait.
#pragma once

#include <cstdint>

#include "cachelib/device/models/hdd_params.h"

namespace tiercache {

class HddGeometry {
 public:
  // `capacity` is the modelled disk size in bytes (max of the profile's and the target's).
  HddGeometry(const HddParams& params, uint64_t capacity);

  uint64_t capacity() const { return capacity_; }
  double revolution_ns() const { return rev_ns_; }
  uint64_t cylinders() const { return cylinders_; }

  // Fractional number of tracks before byte x.
  double tracks_at(uint64_t x) const;
  // Angular position of byte x in turns, [0, 1).
  double angle_of(uint64_t x) const;
  uint64_t cylinder_of(uint64_t x) const;
  // Media rate at byte x in bytes per second.
  double media_rate(uint64_t x) const;
  // The byte the head reaches after `turns` more turns of streaming from byte x (clamped to S).
  uint64_t advance(uint64_t x, double turns) const;

  // Seek between two cylinders in nanoseconds (0 when equal).
  double seek_ns(uint64_t from_cyl, uint64_t to_cyl, bool write) const;
  // Media transfer of [x, x + len) in nanoseconds.
  double transfer_ns(uint64_t x, uint64_t len) const;

 private:
  uint64_t capacity_;
  uint32_t surfaces_;
  double rev_ns_;
  double outer_bps_;  // bytes per second at x = 0
  double slope_;      // a = 1 - inner_ratio
  double tracks_scale_;  // S / (a R T), or 1 / (R T) per byte when a == 0
  uint64_t cylinders_;
  SeekCurve read_seek_, write_seek_;
};

}  // namespace tiercache
