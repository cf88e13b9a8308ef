#include "cachelib/device/models/hdd_params.h"

#include <cmath>

namespace tiercache {
namespace {

Nanos FromMs(double ms) { return Nanos(static_cast<int64_t>(std::llround(ms * 1e6))); }

Status Bad(const std::string& profile, const char* field, const char* why) {
  return Status::InvalidArgument("hdd profile '" + profile + "': " + field + " " + why);
}

}  // namespace

Result<SeekCurve> SeekCurve::Fit(double track_to_track_ms, double average_ms,
                                 double full_stroke_ms) {
  const double t = track_to_track_ms;
  if (!(t > 0) || !(average_ms > t) || !(full_stroke_ms > average_ms)) {
    return Status::InvalidArgument(
        "seek times must satisfy 0 < track-to-track < average < full stroke");
  }
  // x + y = F - t  and  x/3 + 8y/15 = A - t.
  const double y = 5.0 * (average_ms - t) - 5.0 * (full_stroke_ms - t) / 3.0;
  const double x = (full_stroke_ms - t) - y;
  if (y < 0 || x + y / 2.0 < 0) {
    return Status::InvalidArgument("seek times do not fit a non-decreasing t + x*u + y*sqrt(u)");
  }
  return SeekCurve{t, x, y};
}

double SeekCurve::at(double u) const {
  if (u <= 0) return 0;
  return t_ms + x_ms * u + y_ms * std::sqrt(u);
}

Status HddParams::validate() const {
  if (capacity_bytes < (1ull << 20)) return Bad(name, "capacity_bytes", "must be >= 1 MiB");
  if (!(rpm >= 1000 && rpm <= 20000)) return Bad(name, "rpm", "must be in [1000, 20000]");
  if (surfaces < 1) return Bad(name, "surfaces", "must be >= 1");
  auto read = SeekCurve::Fit(track_to_track_read_ms, avg_seek_read_ms, full_stroke_read_ms);
  if (!read.ok()) return Bad(name, "read seek times", read.status().message().c_str());
  auto write = SeekCurve::Fit(track_to_track_write_ms, avg_seek_write_ms, full_stroke_write_ms);
  if (!write.ok()) return Bad(name, "write seek times", write.status().message().c_str());
  if (!(outer_mb_s > 0)) return Bad(name, "outer_mb_s", "must be > 0");
  if (!(inner_ratio > 0 && inner_ratio <= 1)) return Bad(name, "inner_ratio", "must be in (0, 1]");
  if (!(command_overhead_ms >= 0)) return Bad(name, "command_overhead_ms", "must be >= 0");
  if (!(interface_mb_s > 0)) return Bad(name, "interface_mb_s", "must be > 0");
  if (ncq_depth < 1) return Bad(name, "ncq_depth", "must be >= 1");
  if (write_cache && write_cache_bytes < 4096) {
    return Bad(name, "write_cache_bytes", "must be >= 4096 when write_cache is on");
  }
  if (write_cache && write_cache_entries < 1) {
    return Bad(name, "write_cache_entries", "must be >= 1 when write_cache is on");
  }
  if (destage_window < 1) return Bad(name, "destage_window", "must be >= 1");
  if (buffer_segments < 1) return Bad(name, "buffer_segments", "must be >= 1");
  if (segment_bytes < 4096) return Bad(name, "segment_bytes", "must be >= 4096");
  if (!(starvation_ms > 0)) return Bad(name, "starvation_ms", "must be > 0");
  return Status::Ok();
}

Nanos HddParams::revolution() const { return FromMs(60000.0 / rpm); }
Nanos HddParams::command_overhead() const { return FromMs(command_overhead_ms); }
Nanos HddParams::starvation() const { return FromMs(starvation_ms); }

}  // namespace tiercache
