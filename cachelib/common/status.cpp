#include "cachelib/common/status.h"

#include <cerrno>
#include <cstring>

namespace tiercache {

Status Status::FromErrno(int err, std::string_view context) {
  std::string msg(context);
  msg += ": ";
  msg += std::strerror(err);
  switch (err) {
    case 0: return Status::Ok();
    case EINVAL: return InvalidArgument(msg);
    case ENOSPC: case EFBIG: return NoSpace(msg);
    case ENOENT: case ENXIO: case ENODEV: return NotFound(msg);
    case EOPNOTSUPP: return NotSupported(msg);
    case EBUSY: case EAGAIN: return Busy(msg);
    default: return IoError(msg);
  }
}

int Status::to_errno() const {
  switch (code_) {
    case Code::kOk: return 0;
    case Code::kIoError: return EIO;
    case Code::kCorruption: return EIO;
    case Code::kNotFound: return ENOENT;
    case Code::kInvalidArgument: return EINVAL;
    case Code::kNotSupported: return EOPNOTSUPP;
    case Code::kNoSpace: return ENOSPC;
    case Code::kBusy: return EBUSY;
  }
  return EIO;
}

std::string_view Status::CodeName(Code code) {
  switch (code) {
    case Code::kOk: return "OK";
    case Code::kIoError: return "IoError";
    case Code::kCorruption: return "Corruption";
    case Code::kNotFound: return "NotFound";
    case Code::kInvalidArgument: return "InvalidArgument";
    case Code::kNotSupported: return "NotSupported";
    case Code::kNoSpace: return "NoSpace";
    case Code::kBusy: return "Busy";
  }
  return "Unknown";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string s(CodeName(code_));
  if (!message().empty()) {
    s += ": ";
    s += message();
  }
  return s;
}

}  // namespace tiercache
