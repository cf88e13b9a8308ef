// `tiercache top`: a live view of a running tiercached: every --interval seconds one frame of
// IOPS, MB/s, hit ratio, dirty data and latency percentiles per path, computed from the
// differences between two successive stats replies. Plain text frames; the screen is cleared
// before each only when stdout is a terminal; --json prints the stats replies instead.
// Stateless functions; thread-compatible.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "cachelib/common/latency_histogram.h"
#include "daemon/control/control_json.h"
#include "tools/cli_options.h"
#include "tools/command_io.h"

namespace tiercache {

// What happened between two stats replies.
struct TopFrame {
  std::string cache_name = "?", health = "?";  // from the later reply
  double seconds = 0;                           // between the replies
  uint64_t reads = 0, writes = 0;               // client requests (bypasses included)
  uint64_t read_hits = 0;                       // reads served wholly from the SSD
  uint64_t read_bytes = 0, read_hit_bytes = 0, write_bytes = 0;
  uint64_t dirty_bytes = 0;                     // at the later reply
  std::array<LatencySnapshot, 4> latency;       // per kLatencyPaths (hit, miss, write, flush)
};

// The frame between the "stats" objects `before` and `after`, taken `seconds` apart. A counter
// that went down (a restarted daemon) counts as 0.
TopFrame ComputeTopFrame(const ControlJson& before, const ControlJson& after, double seconds);
// The frame as text: per-second rates with one (IOPS) or two (MB/s, 10^6 bytes) decimals.
std::string RenderTopFrame(const TopFrame& frame);

int RunTop(const CliOptions& options, CommandIo& io);

}  // namespace tiercache
