#include "cachelib/device/io_backend.h"

#include <string>

namespace tiercache {

const char* IoBackendName(IoBackend backend) {
  switch (backend) {
    case IoBackend::kUring:
      return "uring";
    case IoBackend::kAio:
      return "aio";
    case IoBackend::kAuto:
      break;
  }
  return "auto";
}

Result<IoBackend> ParseIoBackend(std::string_view name) {
  for (IoBackend b : {IoBackend::kAuto, IoBackend::kUring, IoBackend::kAio}) {
    if (name == IoBackendName(b)) return b;
  }
  return Status::InvalidArgument("I/O backend \"" + std::string(name) +
                                 "\" is not one of auto, uring, aio");
}

}  // namespace tiercache
