#include "cachelib/device/models/ssd_params.h"

namespace tiercache {
namespace {

Status Bad(const std::string& profile, const char* field, const char* why) {
  return Status::InvalidArgument("ssd profile '" + profile + "': " + field + " " + why);
}

}  // namespace

Status SsdParams::validate() const {
  if (units < 1) return Bad(name, "units", "must be >= 1");
  if (stripe_bytes < 512 || (stripe_bytes & (stripe_bytes - 1)) != 0) {
    return Bad(name, "stripe_bytes", "must be a power of two >= 512");
  }
  if (!(command_overhead_us >= 0)) return Bad(name, "command_overhead_us", "must be >= 0");
  if (!(read_latency_us >= 0)) return Bad(name, "read_latency_us", "must be >= 0");
  if (!(program_latency_us >= 0)) return Bad(name, "program_latency_us", "must be >= 0");
  if (!(write_ack_us >= 0)) return Bad(name, "write_ack_us", "must be >= 0");
  if (!(write_lag_ms >= 0)) return Bad(name, "write_lag_ms", "must be >= 0");
  if (!(unit_read_mb_s > 0)) return Bad(name, "unit_read_mb_s", "must be > 0");
  if (!(unit_write_mb_s > 0)) return Bad(name, "unit_write_mb_s", "must be > 0");
  if (!(link_read_mb_s > 0)) return Bad(name, "link_read_mb_s", "must be > 0");
  if (!(link_write_mb_s > 0)) return Bad(name, "link_write_mb_s", "must be > 0");
  if (queue_depth < 1) return Bad(name, "queue_depth", "must be >= 1");
  if (!(flush_us >= 0)) return Bad(name, "flush_us", "must be >= 0");
  return Status::Ok();
}

}  // namespace tiercache
