#include "daemon/nbd/export_info.h"

#include <algorithm>

#include "daemon/nbd/nbd_constants.h"

namespace tiercache::nbd {

ExportInfo::ExportInfo(std::string name, std::string description, uint64_t size, uint32_t min_block,
                       uint64_t max_io_bytes)
    : name_(std::move(name)),
      description_(std::move(description)),
      size_(size),
      min_block_(min_block),
      preferred_block_(std::max(kPreferredBlock, min_block)) {
  uint64_t max = std::min<uint64_t>(kMaxBlock, max_io_bytes);
  max_block_ = uint32_t(max - max % min_block_);
}

Status ExportInfo::Validate(std::string_view name, std::string_view description, uint32_t min_block,
                            uint64_t max_io_bytes) {
  if (name.size() > kMaxStringLength || description.size() > kMaxStringLength) {
    return Status::InvalidArgument("export name or description longer than 4096 bytes");
  }
  if (name.find('\0') != std::string_view::npos) {
    return Status::InvalidArgument("export name contains a NUL byte");
  }
  if (min_block == 0 || (min_block & (min_block - 1)) != 0 || min_block > 65536) {
    return Status::InvalidArgument("device block size " + std::to_string(min_block) +
                                   " cannot be advertised (power of two up to 64 KiB)");
  }
  if (max_io_bytes < std::max(kPreferredBlock, min_block)) {
    return Status::InvalidArgument("device maximum I/O size below the preferred block size");
  }
  return Status::Ok();
}

uint16_t ExportInfo::TransmissionFlags(bool structured_replies) const {
  uint16_t flags = kFlagHasFlags | kFlagSendFlush | kFlagSendFua | kFlagSendTrim |
                   kFlagSendWriteZeroes | kFlagSendCache | kFlagSendFastZero | kFlagCanMultiConn;
  if (structured_replies) flags |= kFlagSendDf;
  return flags;
}

}  // namespace tiercache::nbd
