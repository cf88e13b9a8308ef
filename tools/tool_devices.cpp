#include "tools/tool_devices.h"

#include <cstdlib>

#include "cachelib/metadata/format.h"

namespace tiercache {

Result<std::unique_ptr<FileDevice>> OpenToolDevice(const std::string& path, bool read_only) {
  FileDeviceOptions options;
  options.read_only = read_only;
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
