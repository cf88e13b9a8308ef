#include "daemon/control/control_paths.h"
#include "tools/create_command.h"

#include "cachelib/common/size_parser.h"
#include "cachelib/device/instance_lock.h"
#include "cachelib/metadata/format.h"
#include "cachelib/metadata/line_record.h"
#include "daemon/control/control_json.h"
#include "tools/check_command.h"
#include "tools/device_signature.h"
#include "tools/exit_codes.h"
#include "tools/reply_printer.h"
#include "tools/sparse_space.h"
#include "tools/tool_devices.h"

namespace tiercache {
namespace {

// What could fail the new cache later, or what it does not serve, found after formatting (the
// format succeeded either way).
std::vector<std::string> CreateWarnings(const std::string& cache, const CoreIdentity& core) {
  std::vector<std::string> warnings;
  if (const uint64_t tail = core.size % kSectorSize; tail != 0) {
    warnings.push_back("core " + core.path + " is " + std::to_string(core.size) +
                       " bytes, not a multiple of 4 KiB: the cached volume is " +
                       std::to_string(core.size - tail) + " bytes; its last " +
                       std::to_string(tail) + " bytes are not served");
  }
  Result<std::optional<FileSpace>> space = MeasureFileSpace(cache);
  if (!space.ok()) {
    warnings.push_back("cannot tell whether " + cache + " has room for its lines: " +
                       space.status().message());
  } else if (space->has_value()) {
    std::optional<std::string> sparse = SparseSpaceWarning(cache, **space);
    if (sparse) warnings.push_back(*sparse);
  }
  return warnings;
}

void PrintCreated(const CliOptions& o, const Superblock& sb, uint64_t ssd_size,
                  const std::vector<std::string>& warnings, CommandIo& io) {
  if (io.json) {
    ControlJson j = ControlJson::object();
    j["ok"] = true;
    j["cache"] = o.cache;
    j["core"] = sb.core.path;
    j["core_size"] = sb.core.size;
    j["uuid"] = FormatUuid(sb.uuid);
    j["mode"] = std::string(ModeName(sb.mode));
    j["line_size"] = sb.layout.line_size;
    j["line_count"] = sb.layout.line_count;
    j["data_offset"] = sb.layout.data_offset;
    j["policies"] = PolicyOptionsToJson(sb.policies);
    j["warnings"] = ControlJson::array();
    for (const std::string& w : warnings) j["warnings"].push_back(w);
    return PrintJsonLine(io, j);
  }
  io.out << "created a tiercache on " << o.cache << " (" << FormatSize(ssd_size) << ") for "
         << sb.core.path << " (" << FormatSize(sb.core.size) << ")\n"
         << "uuid:       " << FormatUuid(sb.uuid) << "\n"
         << "mode:       " << ModeName(sb.mode) << "\n"
         << "policies:   " << DescribePolicies(PolicyOptionsToJson(sb.policies)) << "\n"
         << "lines:      " << sb.layout.line_count << " of " << FormatSize(sb.layout.line_size)
         << " (" << FormatSize(sb.layout.line_count * sb.layout.line_size) << " of cache)\n"
         << "start with: tiercached --cache " << o.cache << " --core " << o.core << "\n";
  for (const std::string& w : warnings) io.err << "tiercache create: warning: " << w << "\n";
}

// What mkfs would warn of: a filesystem (or other signature) anywhere on the cache device, or a
// cache larger than its core (the two swapped?). --force skips both.
Status CheckLooksLikeACache(const CliOptions& o, uint64_t cache_size, const CoreIdentity& core) {
  Result<std::string> signature = FindForeignSignature(o.cache);
  if (!signature.ok()) return signature.status();
  if (!signature->empty()) {
    return Status::Busy(o.cache + " holds " + *signature + " (found by blkid); use --force to "
                        "overwrite it");
  }
  if (cache_size > core.size) {
    return Status::InvalidArgument(
        "--cache " + o.cache + " (" + FormatSize(cache_size) + ") is larger than --core " +
        o.core + " (" + FormatSize(core.size) + "): are the two swapped? The cache only ever "
        "holds copies of the core's data; use --force to create it anyway");
  }
  return Status::Ok();
}

}  // namespace

Status CheckNoDirtyData(AsyncRunner& runner, Device& ssd) {
  Result<OfflineCache> cache = LoadOffline(runner, ssd, std::nullopt);
  if (!cache.ok()) {
    const Status& s = cache.status();
    if (s.code() == Status::Code::kNotFound) {  // no tiercache superblock there
      Result<bool> orphan = HoldsOrphanMetadata(runner, ssd);
      if (!orphan.ok()) return orphan.status();
      if (!*orphan) return Status::Ok();
      return Status::Busy(ssd.name() + " holds " + format::kOrphanMetadata +
                          "; add --discard-dirty to overwrite it anyway");
    }
    std::string msg = "cannot tell whether " + ssd.name() + " holds dirty data (" + s.message() +
                      "); add --discard-dirty to overwrite it anyway (any dirty data on it is "
                      "lost)";
    // Keep the cause's code: scripts see a Corruption or NotSupported, not a generic error.
    switch (s.code()) {
      case Status::Code::kCorruption: return Status::Corruption(msg);
      case Status::Code::kNotSupported: return Status::NotSupported(msg);
      case Status::Code::kInvalidArgument: return Status::InvalidArgument(msg);
      default: return Status::IoError(msg);
    }
  }
  RecordReport records = CheckRecords(*cache->store);
  if (records.lines_dirty == 0) return Status::Ok();
  uint64_t bytes = records.dirty_sectors * kSectorSize;
  return Status::Busy(
      ssd.name() + " holds " + std::to_string(records.lines_dirty) + " dirty lines (" +
      std::to_string(bytes) + " bytes, " + FormatSize(bytes) + ") not yet written to its core " +
      cache->superblock.sb.core.path + "; overwriting it would lose them. Write them back "
      "first (start `tiercached --cache " + ssd.name() + "`, run `tiercache flush`, then "
      "`tiercache stop`), or add --discard-dirty to drop them");
}

Result<LoadedSuperblock> FormatCache(AsyncRunner& runner, Device& ssd, const CoreIdentity& core,
                                     const FormatOptions& options) {
  Status formatted = runner.run([&](std::function<void(Status)> done) {
    MetadataStore::Format(ssd, core, options, std::move(done));
  });
  if (!formatted.ok()) return formatted;
  return ReadSuperblock(runner, ssd);
}

int RunCreate(const CliOptions& given, CommandIo& io) {
  // The superblock records the core path for tiercached, which may run in another directory.
  CliOptions o = given;
  o.cache = AbsolutePath(given.cache);
  o.core = AbsolutePath(given.core);
  auto fail = [&io](const Status& s) {
    return ReportFailure(io, "create", std::string(Status::CodeName(s.code())), s.message(),
                         kExitFailed);
  };
  if (Status s = CheckNotServed(o.cache, o.control); !s.ok()) return fail(s);
  // The daemon holds this lock whatever sockets it serves on; hold it while formatting.
  Result<std::unique_ptr<InstanceLock>> lock = InstanceLock::Acquire(o.cache);
  if (!lock.ok()) return fail(lock.status());
  Result<CoreIdentity> core = IdentifyCore(o.core);
  if (!core.ok()) return fail(core.status());
  if (core->size < kSectorSize) {
    return fail(Status::InvalidArgument("core " + o.core + " is " + std::to_string(core->size) +
                                        " bytes, less than one 4 KiB sector: nothing to cache"));
  }
  if (Status s = CheckDistinct(o.cache, o.core, *core); !s.ok()) return fail(s);
  Result<std::unique_ptr<AsyncRunner>> runner = AsyncRunner::Start();
  if (!runner.ok()) return fail(runner.status());
  // Declared after the runner: the device is destroyed first, while its loop still runs.
  Result<std::unique_ptr<FileDevice>> ssd = OpenToolDevice(o.cache, /*read_only=*/false);
  if (!ssd.ok()) return fail(ssd.status());
  if (o.force && !o.discard_dirty) {
    if (Status s = CheckNoDirtyData(**runner, **ssd); !s.ok()) return fail(s);
  }
  if (!o.force) {
    if (Status s = CheckLooksLikeACache(o, (*ssd)->size(), *core); !s.ok()) return fail(s);
  }
  // Before the format, so that a filesystem without room for it changes nothing.
  const format::Layout layout = format::LayoutForSsd((*ssd)->size(), o.line_size);
  if (layout.line_count >= format::kMinLines) {
    if (Status s = AllocateMetadataRegion(o.cache, layout.data_offset); !s.ok()) return fail(s);
  }
  FormatOptions options;
  options.line_size = o.line_size;
  options.mode = o.create_mode;
  options.force = o.force;
  options.policies = o.policies;
  Result<LoadedSuperblock> sb = FormatCache(**runner, **ssd, *core, options);
  if (!sb.ok()) return fail(sb.status());
  // Again: the format zeroes the region, which punches holes where a file system cannot zero a
  // range in place (tmpfs). The space the holes freed is there to take back.
  if (Status s = AllocateMetadataRegion(o.cache, sb->sb.layout.data_offset); !s.ok()) {
    return fail(s.with_message(s.message() + " (the cache was formatted)"));
  }
  PrintCreated(o, sb->sb, (*ssd)->size(), CreateWarnings(o.cache, *core), io);
  return kExitOk;
}

}  // namespace tiercache
