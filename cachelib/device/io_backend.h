// IoBackend: which kernel interface FileDevice uses (FileDeviceOptions::backend, tiercached
// --io-backend), with its names. Plain values and stateless functions; thread-safe.
#pragma once

#include <string_view>

#include "cachelib/common/status.h"

namespace tiercache {

enum class IoBackend {
  kAuto,   // io_uring, else libaio where io_uring is missing or refused (seccomp, sysctl)
  kUring,  // io_uring only: failing to set it up fails the open or the request
  kAio,    // libaio only
};

// "auto", "uring", "aio".
const char* IoBackendName(IoBackend backend);
// The inverse of IoBackendName; InvalidArgument naming the choices otherwise.
Result<IoBackend> ParseIoBackend(std::string_view name);

}  // namespace tiercache
