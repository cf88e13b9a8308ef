#include "daemon/ublk/ublk_options.h"

#include <cstdlib>
#include <string>

namespace tiercache {

namespace {

bool PowerOfTwo(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

}  // namespace

Status UblkOptions::validate() const {
  if (dev_id < -1 || dev_id >= (1 << 20)) {
    return Status::InvalidArgument("ublk: dev_id must be -1 or 0..1048575, got " +
                                   std::to_string(dev_id));
  }
  if (queues < 1 || queues > 64) {
    return Status::InvalidArgument("ublk: queues must be 1..64, got " + std::to_string(queues));
  }
  if (depth < 1 || depth > 4096) {
    return Status::InvalidArgument("ublk: depth must be 1..4096, got " + std::to_string(depth));
  }
  if (max_io_bytes < 4096 || max_io_bytes > (32u << 20) || max_io_bytes % 4096 != 0) {
    return Status::InvalidArgument(
        "ublk: max_io_bytes must be a multiple of 4096 in 4 KiB..32 MiB, got " +
        std::to_string(max_io_bytes));
  }
  if (!PowerOfTwo(logical_block_size) || logical_block_size < 512 || logical_block_size > 4096) {
    return Status::InvalidArgument(
        "ublk: logical_block_size must be 512, 1024, 2048 or 4096, got " +
        std::to_string(logical_block_size));
  }
  if (control_path.empty() || dev_dir.empty()) {
    return Status::InvalidArgument("ublk: control_path and dev_dir must not be empty");
  }
  return Status::Ok();
}

bool UblkOptions::OwnRingWanted() const {
  const char* env = std::getenv("TIERCACHE_UBLK_OWN_RING");
  return own_ring || (env != nullptr && env[0] == '1');
}

}  // namespace tiercache
