// UblkRequestExecutor: turns one ublk request descriptor (ublksrv_io_desc) into a Device call,
// and the Device's Status into the result committed back to the kernel: the byte count for
// READ and WRITE, 0 for FLUSH, DISCARD and WRITE_ZEROES, a negative errno on failure
// (Status::to_errno, the one Status -> ublk error mapping). UBLK_IO_F_FUA becomes
// WriteFlags::fua. Holds a reference to the Device; thread-compatible (one per queue).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "cachelib/device/device.h"
#include "daemon/ublk/ublk_abi.h"

namespace tiercache {

class UblkRequestExecutor {
 public:
  using Done = std::function<void(int32_t result)>;

  // `buffer_bytes` is the size of each tag's buffer; longer READ/WRITE requests fail EINVAL.
  UblkRequestExecutor(Device& device, uint64_t buffer_bytes)
      : device_(device), buffer_bytes_(buffer_bytes) {}

  // Starts the request; `done(result)` runs later on the current event loop, never inline.
  // No heap allocation (the closures sit in the loop's SlotPool) as long as `done` fits
  // std::function's inline storage: trivially copyable and at most 16 bytes, as UblkQueue's.
  // REQUIRES: on an event loop; `buf` has buffer_bytes bytes and stays valid until done runs.
  void execute(const ublksrv_io_desc& iod, std::byte* buf, Done done);

  // The value to commit for a request that moved `bytes` bytes and ended with `status`.
  static int32_t ResultFor(const Status& status, uint64_t bytes);

 private:
  Device& device_;
  const uint64_t buffer_bytes_;
};

}  // namespace tiercache
