#include "daemon/control/control_paths.h"
#include "tools/attach_command.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "cachelib/common/size_parser.h"
#include "cachelib/device/instance_lock.h"
#include "cachelib/metadata/superblock_writer.h"
#include "tools/check_command.h"
#include "tools/exit_codes.h"
#include "tools/tool_devices.h"

namespace tiercache {
namespace {

using Buffer = std::unique_ptr<std::byte, decltype(&std::free)>;

Buffer AlignedBuffer(size_t bytes) {
  return Buffer(static_cast<std::byte*>(std::aligned_alloc(kSectorSize, bytes)), &std::free);
}

SectorBits CleanSectors(const LineRecord& r) { return r.valid & ~r.dirty; }

// The cache lines to compare: up to kAttachSampleLines of those holding clean sectors, spread
// evenly over them (two passes, so no list of every line is kept).
std::vector<uint64_t> PickSample(const MetadataStore& store) {
  uint64_t clean = 0;
  store.for_each_loaded([&](uint64_t, const LineRecord& r) { clean += CleanSectors(r).any(); });
  std::vector<uint64_t> picked;
  uint64_t index = 0;
  store.for_each_loaded([&](uint64_t line, const LineRecord& r) {
    if (!CleanSectors(r).any()) return;
    // The k-th pick is the clean line numbered floor(k * clean / sample).
    uint64_t k = picked.size();
    if (k < kAttachSampleLines && index == k * clean / std::min(clean, kAttachSampleLines)) {
      picked.push_back(line);
    }
    ++index;
  });
  return picked;
}

struct Difference {
  uint64_t line = 0;
  uint64_t core_offset = 0;
};

// Reads cache line `line` from both devices and compares its clean sectors; adds the bytes
// compared to *bytes. Returns the first differing sector, if any.
Result<std::optional<Difference>> CompareLine(AsyncRunner& runner, Device& ssd, Device& core,
                                              const MetadataStore& store, uint64_t line,
                                              uint64_t* bytes) {
  const LineRecord r = store.loaded_record(line);
  const uint64_t line_size = store.info().line_size;
  const uint64_t core_offset = r.core_line * line_size;
  if (core_offset >= core.size()) return std::optional(Difference{line, core_offset});
  const uint64_t length = std::min(line_size, core.size() - core_offset);
  Buffer on_ssd = AlignedBuffer(line_size), on_core = AlignedBuffer(line_size);
  if (!on_ssd || !on_core) return Status::NoSpace("attach: no memory for a line buffer");
  std::span<std::byte> ssd_buf(on_ssd.get(), length), core_buf(on_core.get(), length);
  TC_RETURN_IF_ERROR(
      runner.run([&](auto done) { ssd.read(store.data_offset(line), ssd_buf, done); }));
  TC_RETURN_IF_ERROR(runner.run([&](auto done) { core.read(core_offset, core_buf, done); }));
  const SectorBits clean = CleanSectors(r);
  for (uint64_t s = 0; s < kMaxSectorsPerLine && s * kSectorSize < length; ++s) {
    if (!clean.test(s)) continue;
    uint64_t at = s * kSectorSize, n = std::min<uint64_t>(kSectorSize, length - at);
    if (std::memcmp(ssd_buf.data() + at, core_buf.data() + at, n) != 0) {
      return std::optional(Difference{line, core_offset + at});
    }
    *bytes += n;
  }
  return std::optional<Difference>();
}

// InvalidArgument naming what differs, when the core is not the cache's.
Status Verify(AsyncRunner& runner, Device& ssd, Device& core, const OfflineCache& cache,
              const CoreIdentity& id, bool force, AttachReport* report) {
  const Superblock& sb = cache.superblock.sb;
  const std::string tail = "; the superblock was not changed";
  if (id.size != sb.core.size) {
    return Status::InvalidArgument("core " + id.path + " is " + std::to_string(id.size) +
                                   " bytes but cache " + ssd.name() + " was created for " +
                                   std::to_string(sb.core.size) + " bytes" + tail);
  }
  std::vector<uint64_t> sample = PickSample(*cache.store);
  if (sample.empty() && report->dirty_lines > 0 && !force) {
    return Status::InvalidArgument(
        "cache " + ssd.name() + " holds no clean data to compare with core " + id.path + ", but " +
        std::to_string(report->dirty_lines) + " dirty lines that would be written to it" + tail +
        "; add --force to re-bind without a comparison");
  }
  uint64_t differing = 0;
  std::optional<Difference> first;
  for (uint64_t line : sample) {
    auto diff = CompareLine(runner, ssd, core, *cache.store, line, &report->compared_bytes);
    if (!diff.ok()) return diff.status();
    if (*diff && !first) first = *diff;
    differing += diff->has_value();
  }
  report->compared_lines = sample.size();
  if (!first) return Status::Ok();
  return Status::InvalidArgument(
      "core " + id.path + " does not hold the data cache " + ssd.name() + " holds clean for it: " +
      std::to_string(differing) + " of " + std::to_string(sample.size()) +
      " compared lines differ (first: cache line " + std::to_string(first->line) +
      ", core offset " + std::to_string(first->core_offset) + ")" + tail);
}

void PrintAttached(const CliOptions& o, const CoreIdentity& id, const AttachReport& r,
                   CommandIo& io) {
  if (io.json) {
    ControlJson j = ControlJson::object();
    j["ok"] = true;
    j["cache"] = o.cache;
    j["core"] = id.path;
    j["previous_core"] = r.previous_core;
    j["core_size"] = id.size;
    j["changed"] = !r.unchanged;
    j["compared_lines"] = r.compared_lines;
    j["compared_bytes"] = r.compared_bytes;
    j["dirty_lines"] = r.dirty_lines;
    return PrintJsonLine(io, j);
  }
  if (r.unchanged) {
    io.out << "cache " << o.cache << " is already bound to core " << id.path
           << "; nothing changed\n";
    return;
  }
  io.out << "re-bound cache " << o.cache << " to core " << id.path << " (was "
         << r.previous_core << ")\n"
         << "compared:   " << r.compared_lines << " lines, " << FormatSize(r.compared_bytes)
         << " held clean, all identical\n"
         << "start with: tiercached --cache " << o.cache << "\n";
}

}  // namespace

Result<AttachReport> AttachCore(AsyncRunner& runner, Device& ssd, Device& core_dev,
                                const CoreIdentity& id, bool force) {
  Result<OfflineCache> cache = LoadOffline(runner, ssd, std::nullopt);
  if (!cache.ok()) return cache.status();
  AttachReport report;
  const Superblock& sb = cache->superblock.sb;
  report.previous_core = sb.core.path;
  report.dirty_lines = CheckRecords(*cache->store).lines_dirty;
  if (sb.core == id) {
    report.unchanged = true;
    return report;
  }
  TC_RETURN_IF_ERROR(Verify(runner, ssd, core_dev, *cache, id, force, &report));
  LoadedSuperblock current = cache->superblock;
  cache->store.reset();  // nothing may use the SSD while the superblock is rewritten
  TC_RETURN_IF_ERROR(runner.run([&](auto done) { RebindCore(ssd, current, id, done); }));
  return report;
}

int RunAttach(const CliOptions& given, CommandIo& io) {
  CliOptions o = given;
  o.cache = AbsolutePath(given.cache);
  o.core = AbsolutePath(given.core);
  auto fail = [&io](const Status& s) {
    return ReportFailure(io, "attach", std::string(Status::CodeName(s.code())), s.message(),
                         kExitFailed);
  };
  if (Status s = CheckNotServed(o.cache, o.control); !s.ok()) return fail(s);
  Result<CoreIdentity> id = IdentifyCore(o.core);
  if (!id.ok()) return fail(id.status());
  if (Status s = CheckDistinct(o.cache, o.core, *id); !s.ok()) return fail(s);
  // No daemon may start on either device while they are compared and the superblock changes.
  auto cache_lock = InstanceLock::Acquire(o.cache);
  if (!cache_lock.ok()) return fail(cache_lock.status());
  auto core_lock = InstanceLock::Acquire(o.core);
  if (!core_lock.ok()) return fail(core_lock.status());
  Result<std::unique_ptr<AsyncRunner>> runner = AsyncRunner::Start();
  if (!runner.ok()) return fail(runner.status());
  // Declared after the runner: the devices are destroyed first, while its loop still runs.
  Result<std::unique_ptr<FileDevice>> ssd = OpenToolDevice(o.cache, /*read_only=*/false);
  if (!ssd.ok()) return fail(ssd.status());
  Result<std::unique_ptr<FileDevice>> core = OpenToolDevice(o.core, /*read_only=*/true);
  if (!core.ok()) return fail(core.status());
  Result<AttachReport> report = AttachCore(**runner, **ssd, **core, *id, o.force);
  if (!report.ok()) return fail(report.status());
  PrintAttached(o, *id, *report, io);
  return kExitOk;
}

}  // namespace tiercache
