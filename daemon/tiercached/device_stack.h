// DeviceStack: one of the daemon's devices as a stack: the file or block device (FileDevice) and,
// optionally, a timing model over it (--core-model / --cache-model) so that no I/O completes before
// the modelled drive would finish it. top() is what the cache uses; file() tells how it reaches the
// kernel. Destroy on `loop`'s thread.
#pragma once

#include <memory>
#include <string>

#include "cachelib/common/event_loop.h"
#include "cachelib/device/device.h"
#include "cachelib/device/io_backend.h"

namespace tiercache {

class FileDevice;
struct ModelProfile;

// The timing profile `model` names, from `models_file` or the built-in ones.
Result<ModelProfile> FindModelProfile(const std::string& model, const std::string& models_file);

class DeviceStack {
 public:
  DeviceStack();
  ~DeviceStack();
  // Opens `path` (O_DIRECT unless buffered) and wraps it in `model` if not empty
  // (profiles from `models_file`, or the built-in ones), through the kernel interface `io`.
  Status open(const std::string& path, bool buffered, const std::string& model,
              const std::string& models_file, EventLoop& loop, IoBackend io = IoBackend::kAuto);
  Device& top() { return *top_; }
  const FileDevice& file() const { return *file_; }

 private:
  std::unique_ptr<FileDevice> file_;
  std::unique_ptr<Device> model_;
  Device* top_ = nullptr;
};

}  // namespace tiercache
