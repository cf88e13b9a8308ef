#include "tools/tool_devices.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "cachelib/metadata/format.h"
#include "daemon/control/control_paths.h"
#include "daemon/control/unix_socket.h"

namespace tiercache {

std::string AbsolutePath(const std::string& path) {
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(path, ec);
  return ec ? path : abs.lexically_normal().string();
}

Status CheckNotServed(const std::string& cache, const std::string& control) {
  std::string ctl = control.empty() ? DefaultControlPath(cache) : control;
  Result<int> fd = ConnectUnix(ctl);
  if (!fd.ok()) return Status::Ok();
  ::close(*fd);
  return Status::Busy(cache + " is in use by a running tiercached (control socket " + ctl +
                      "); stop it first with `tiercache stop`");
}

Status CheckDistinct(const std::string& cache, const std::string& core_path,
                     const CoreIdentity& core) {
  if (IsSameDevice(cache, core)) {
    return Status::InvalidArgument("--cache " + cache + " and --core " + core_path +
                                   " are the same device");
  }
  return Status::Ok();
}

Result<std::unique_ptr<FileDevice>> OpenToolDevice(const std::string& path, bool read_only) {
  FileDeviceOptions options;
  options.read_only = read_only;
  options.exclusive = !read_only;  // check may look at a cache a daemon serves
  Result<std::unique_ptr<FileDevice>> device = FileDevice::Open(path, options);
  if (device.ok() || device.status().code() != Status::Code::kInvalidArgument) return device;
  options.buffered = true;  // e.g. tmpfs refuses O_DIRECT
  Result<std::unique_ptr<FileDevice>> buffered = FileDevice::Open(path, options);
  return buffered.ok() ? std::move(buffered) : std::move(device);
}

Result<LoadedSuperblock> ReadSuperblock(AsyncRunner& runner, Device& ssd) {
  constexpr size_t kArea = format::kSuperblockAreaSize;
  if (ssd.size() < kArea) {
    return Status::NotFound(ssd.name() + " is too small to hold a tiercache superblock");
  }
  // O_DIRECT needs an aligned buffer.
  std::unique_ptr<std::byte, decltype(&std::free)> buf(
      static_cast<std::byte*>(std::aligned_alloc(format::kBlockSize, kArea)), &std::free);
  std::span<std::byte> area(buf.get(), kArea);
  Status read = runner.run([&](std::function<void(Status)> done) { ssd.read(0, area, done); });
  if (!read.ok()) return read;
  return LoadSuperblock(area, ssd.name());
}

}  // namespace tiercache
