// UblkOptions: how UblkServer exposes a Device as /dev/ublkbN. A plain value type.
#pragma once

#include <cstdint>
#include <string>

#include "cachelib/common/status.h"

namespace tiercache {

struct UblkOptions {
  // Device number N of /dev/ublkbN; -1 lets the kernel pick the lowest free one. Default: -1.
  int32_t dev_id = -1;
  // Hardware queues, one thread each. 1..64; the kernel caps it at the CPU count. Default: 1.
  uint32_t queues = 1;
  // Requests in flight per queue. 1..4096. Default: 64.
  uint32_t depth = 64;
  // Largest request in bytes, and the size of each tag's buffer. A multiple of 4096,
  // 4 KiB..32 MiB, and at most the Device's max_io_bytes(). Default: 512 KiB.
  uint32_t max_io_bytes = 512 * 1024;
  // Logical block size of /dev/ublkbN: 512, 1024, 2048 or 4096, and at least the Device's block
  // size. Default: 4096.
  uint32_t logical_block_size = 4096;
  // Ask for UBLK_F_USER_RECOVERY when the kernel offers it, so a restarted server can reattach
  // (UblkServer::Recover) instead of the device disappearing with the process. Default: true.
  bool user_recovery = true;
  // With user_recovery, also ask for UBLK_F_USER_RECOVERY_REISSUE: requests the dead server
  // had received are sent again to the new one instead of failing with EIO (a block device
  // tolerates a repeated write). Default: true.
  bool recovery_reissue = true;
  // Tell the kernel the device has a volatile write cache and supports FUA, so it sends FLUSH
  // and FUA writes. Default: true.
  bool write_cache = true;
  // Advertise discard and write-zeroes. Default: true.
  bool discard = true;
  // Each queue's commands on an io_uring of its own (UblkOwnRing) instead of its event loop's
  // ring (UblkLoopRingCommands), which one wait shares with the loop's disk and network I/O.
  // TIERCACHE_UBLK_OWN_RING=1 in the environment forces it (OwnRingWanted()); tiercached sets
  // it with --io-backend aio. Default: false.
  bool own_ring = false;
  // The control node. Tests point it elsewhere to exercise the error paths.
  // Default: "/dev/ublk-control".
  std::string control_path = "/dev/ublk-control";
  // Directory holding the per-device char node ublkcN. Default: "/dev".
  std::string dev_dir = "/dev";

  // InvalidArgument naming the first bad field.
  Status validate() const;
  // own_ring, or TIERCACHE_UBLK_OWN_RING=1 in the environment (0 or unset: the loop's ring).
  bool OwnRingWanted() const;
};

}  // namespace tiercache
