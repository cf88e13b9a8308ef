#include "tools/tool_devices.h"


#include <cstdlib>

#include "cachelib/device/loop_backing.h"
#include "cachelib/metadata/format.h"
#include "daemon/control/control_paths.h"
#include "tools/control_client.h"
#include "tools/control_locator.h"

namespace tiercache {

Status CheckNotServed(const std::string& cache, const std::string& control) {
  std::string ctl = control.empty() ? DefaultControlPath(cache) : control;
  Result<std::unique_ptr<ControlClient>> client = ControlClient::Connect(ctl);
  if (!client.ok()) return Status::Ok();
  if (control.empty()) {
    // The default socket may be another cache's whose file has the same name. No answer (in
    // time) counts as in use.
    (*client)->set_reply_timeout(std::chrono::seconds(2));
    const std::string served = ServedCache(**client);
    if (!served.empty() && !CheckServedCache(cache, served, ctl).ok()) return Status::Ok();
  }
  return Status::Busy(cache + " is in use by a running tiercached (control socket " + ctl +
                      "); stop it first with `tiercache stop`");
}

Status CheckDistinct(const std::string& cache, const std::string& core_path,
                     const CoreIdentity& core) {
  if (IsSameDevice(cache, core) || SameStorage(cache, core_path)) {
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

namespace {

using AlignedBytes = std::unique_ptr<std::byte, decltype(&std::free)>;

// `length` bytes of `ssd` from `offset`, into a buffer aligned for O_DIRECT.
Result<AlignedBytes> ReadAligned(AsyncRunner& runner, Device& ssd, uint64_t offset,
                                 size_t length) {
  AlignedBytes buf(static_cast<std::byte*>(std::aligned_alloc(format::kBlockSize, length)),
                   &std::free);
  std::span<std::byte> bytes(buf.get(), length);
  Status read =
      runner.run([&](std::function<void(Status)> done) { ssd.read(offset, bytes, done); });
  if (!read.ok()) return read;
  return buf;
}

}  // namespace

Result<LoadedSuperblock> ReadSuperblock(AsyncRunner& runner, Device& ssd) {
  constexpr size_t kArea = format::kSuperblockAreaSize;
  if (ssd.size() < kArea) {
    return Status::NotFound(ssd.name() + " is too small to hold a tiercache superblock");
  }
  Result<AlignedBytes> area = ReadAligned(runner, ssd, 0, kArea);
  if (!area.ok()) return area.status();
  return LoadSuperblock(std::span<const std::byte>(area->get(), kArea), ssd.name());
}

Result<bool> HoldsOrphanMetadata(AsyncRunner& runner, Device& ssd) {
  const uint64_t start = format::kSuperblockAreaSize;
  if (ssd.size() <= start) return false;
  const size_t length = std::min<uint64_t>(format::kMetadataProbeBytes,
                                           (ssd.size() - start) / format::kBlockSize *
                                               format::kBlockSize);
  if (length == 0) return false;
  Result<AlignedBytes> blocks = ReadAligned(runner, ssd, start, length);
  if (!blocks.ok()) return blocks.status();
  return format::HoldsMetadataBlocks(std::span<const std::byte>(blocks->get(), length));
}

}  // namespace tiercache
