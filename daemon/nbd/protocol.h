// Transmission-phase requests: parsing the 28-byte header, validating it against the export
// and what was negotiated (one table entry per command), converting wire flags to internal
// ones, and the single Status -> NBD error mapping. Validation never executes anything.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "cachelib/common/status.h"
#include "cachelib/device/device.h"
#include "daemon/nbd/export_info.h"
#include "daemon/nbd/handshake.h"
#include "daemon/nbd/nbd_constants.h"

namespace tiercache::nbd {

// The request header as sent, before any validation.
struct RequestHeader {
  uint32_t magic = 0;
  uint16_t flags = 0;   // NBD_CMD_FLAG_*
  uint16_t type = 0;    // NBD_CMD_*
  uint64_t cookie = 0;  // "handle": echoed in every reply
  uint64_t offset = 0;
  uint32_t length = 0;
};

// Decodes the fixed header. REQUIRES: bytes.size() >= kRequestHeaderSize.
RequestHeader ParseRequestHeader(std::span<const std::byte> bytes);

// The internal, validated form of a request: wire flags are gone.
enum class Op { kRead, kWrite, kDisc, kFlush, kTrim, kCache, kWriteZeroes, kBlockStatus };

struct Command {
  Op op = Op::kRead;
  uint64_t cookie = 0;
  uint64_t offset = 0;
  uint32_t length = 0;
  WriteFlags write_flags;      // FUA for WRITE, WRITE_ZEROES, TRIM
  bool fast_zero = false;      // WRITE_ZEROES must fail fast (we never can: ENOTSUP)
  bool req_one = false;        // BLOCK_STATUS: one extent per context
  bool dont_fragment = false;  // READ: one content chunk (we always send one)
  uint16_t wire_flags = 0;     // kept only for error mapping (NbdError)
};

// The verdict on one request header.
struct CheckedRequest {
  Command command;          // meaningful when status is OK
  Status status;            // non-OK: reply with NbdError(status) once the payload is consumed
  uint32_t payload = 0;     // bytes of data following the header (WRITE), to read or skip
  bool disconnect = false;  // unrecoverable (bad magic, oversized payload): drain and close
  std::string reason;       // why, when disconnect is set
};

// Validates `header` against the export and the negotiated options: magic, command, flags,
// length limits, alignment to the minimum block size, and the range (overflow-safe). Out of
// range is EINVAL, except ENOSPC for WRITE and WRITE_ZEROES. A WRITE payload over the
// maximum block size disconnects without being read.
CheckedRequest CheckRequest(const RequestHeader& header, const ExportInfo& info,
                            const Negotiated& negotiated);

// The one place a Status becomes an NBD error value. ENOTSUP is only returned for a
// FAST_ZERO request (as the protocol requires); other NotSupported map to EINVAL.
uint32_t NbdError(const Status& status, uint16_t wire_flags);

// "NBD_CMD_READ" etc., for logs.
const char* CommandName(uint16_t type);

}  // namespace tiercache::nbd
