// HddParams: the datasheet-level description of a hard disk that HddModel simulates, and SeekCurve,
// the seek-time function fitted to it. Plain values; thread-compatible. Defaults are the hdd7200
// profile; docs/device-models.md says where each number comes from.
#pragma once

#include <cstdint>
#include <string>

#include "cachelib/common/clock.h"
#include "cachelib/common/status.h"

namespace tiercache {

// Seek time over the seek fraction u = |cylinder distance| / cylinders, for u in (0, 1]:
//   seek(u) = t + x * u + y * sqrt(u)        (no seek at all when u == 0)
// Fit() solves x and y so that seek(1) is the full-stroke time and the mean over the triangular
// seek-distance distribution of random requests (density 2(1-u): E[u] = 1/3, E[sqrt u] = 8/15)
// is the datasheet average.
struct SeekCurve {
  double t_ms = 0, x_ms = 0, y_ms = 0;

  // InvalidArgument when the three times do not give a non-decreasing curve
  // (needs track_to_track <= average <= full_stroke and y >= 0, x + y/2 >= 0).
  static Result<SeekCurve> Fit(double track_to_track_ms, double average_ms, double full_stroke_ms);
  // Seek time in milliseconds; 0 for u <= 0.
  double at(double u) const;
  // Mean of at(u) under density 2(1-u), in closed form.
  double triangular_mean() const { return t_ms + x_ms / 3.0 + y_ms * 8.0 / 15.0; }
};

struct HddParams {
  std::string name = "hdd7200";
  // Capacity of the modelled drive in bytes. A smaller target occupies its first bytes (the fast
  // outer zone, short seeks); a larger target makes the model use the target size instead.
  uint64_t capacity_bytes = 1000204886016ull;
  double rpm = 7200;             // spindle speed; one turn = 60000 / rpm ms
  uint32_t surfaces = 2;         // recording surfaces = tracks per cylinder. Must be >= 1.
  double track_to_track_read_ms = 1.0, track_to_track_write_ms = 1.2;
  double avg_seek_read_ms = 8.5, avg_seek_write_ms = 9.5;
  double full_stroke_read_ms = 16.0, full_stroke_write_ms = 17.0;
  double outer_mb_s = 210;       // media rate at the first LBA, 10^6 B/s
  double inner_ratio = 0.6;      // media rate at the last LBA / outer_mb_s; in (0, 1]
  double command_overhead_ms = 0.1;  // controller time per command before it can use the head
  double interface_mb_s = 600;   // host link (SATA 6 Gb/s), for buffer hits and cached writes
  uint32_t ncq_depth = 32;       // commands the drive reorders among; the rest wait in FIFO order
  bool write_cache = true;       // on: writes complete once in the buffer and are destaged later
  uint64_t write_cache_bytes = 32ull << 20;   // buffer space for not-yet-destaged writes
  uint32_t write_cache_entries = 128;         // ...and at most this many cached write commands
  uint32_t destage_window = 64;  // oldest cached writes considered for the next destage
  uint64_t readahead_bytes = 1ull << 20;      // read-ahead past the last read while idle
  uint32_t buffer_segments = 16; // read-buffer segments kept (LRU)
  uint64_t segment_bytes = 4ull << 20;        // longest range one segment holds
  double starvation_ms = 500;    // a queued command older than this is served next

  // InvalidArgument naming the first bad field.
  Status validate() const;

  Nanos revolution() const;
  Nanos command_overhead() const;
  Nanos starvation() const;
};

}  // namespace tiercache
