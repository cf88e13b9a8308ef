#include "tools/check_command.h"

#include <unistd.h>

#include "cachelib/common/size_parser.h"
#include "daemon/control/control_json.h"
#include "daemon/control/control_paths.h"
#include "daemon/control/unix_socket.h"
#include "tools/exit_codes.h"
#include "tools/metadata_diagnosis.h"
#include "tools/reply_printer.h"
#include "tools/tool_devices.h"

namespace tiercache {
namespace {


void PrintReport(const CheckReport& r, const std::string& cache, std::ostream& out) {
  const SuperblockInfo& info = r.info;
  const format::Layout& layout = r.superblock.sb.layout;
  out << "cache:      " << cache << "\n"
      << "superblock: version " << r.superblock.sb.version << ", uuid " << FormatUuid(info.uuid)
      << ", copy " << r.superblock.copy << " (sequence " << r.superblock.sb.sequence << ")\n";
  if (r.superblock.other_copy != SuperblockState::kValid) {
    // Not a problem: the load fell back to the good copy, losing nothing acknowledged.
    out << "warning:    superblock copy " << 1 - r.superblock.copy << ": "
        << DescribeSuperblockState(r.superblock.other_copy) << "; loaded from copy "
        << r.superblock.copy << ", and tiercached rewrites both when it next opens the cache\n";
  }
  out
      << "core:       " << info.core.path << " (" << FormatSize(info.core.size) << ", "
      << (r.core_from_superblock ? "as recorded; not opened" : "matches --core") << ")\n"
      << "mode:       " << ModeName(info.mode) << "\n"
      << "policies:   " << DescribePolicies(PolicyOptionsToJson(info.policies)) << "\n"
      << "layout:     " << info.line_count << " lines of " << FormatSize(info.line_size)
      << (info.shard_stripe_lines == 0
              ? std::string(" (one range per shard)")
              : " (shard stripes of " + std::to_string(info.shard_stripe_lines) +
                    (info.shard_stripe_lines == 1 ? " line)" : " lines)"))
      << ", " << layout.page_count << " metadata pages, a record journal of "
      << FormatSize(layout.journal_blocks * format::kBlockSize) << ", data at "
      << FormatSize(info.data_offset) << "\n"
      << "shutdown:   "
      << (info.was_clean_shutdown ? "clean"
                                  : "not clean (in use, or the last run crashed; the load "
                                    "keeps dirty lines and the clean lines trust rounds made "
                                    "crash-safe)")
      << "\n"
      << "lines:      " << r.records.lines_used << " used, " << r.records.lines_dirty
      << " dirty (" << r.records.dirty_sectors << " dirty sectors, "
      << FormatSize(r.records.dirty_sectors * kSectorSize) << ")\n";
  for (const std::string& p : r.records.problems) out << "problem:    " << p << "\n";
  if (r.records.problem_count > r.records.problems.size()) {
    out << "problem:    ... and " << (r.records.problem_count - r.records.problems.size())
        << " more\n";
  }
  out << "result:     " << (r.records.problem_count == 0 ? "OK" : "CORRUPT") << "\n";
}

ControlJson ReportJson(const CheckReport& r, const std::string& cache) {
  ControlJson j = ControlJson::object();
  j["ok"] = r.records.problem_count == 0;
  if (r.records.problem_count != 0) {
    j["error"] = std::to_string(r.records.problem_count) + " inconsistent line records";
    j["code"] = "Corruption";
  }
  j["cache"] = cache;
  j["uuid"] = FormatUuid(r.info.uuid);
  j["format_version"] = r.superblock.sb.version;  // as on the SSD (opening would rewrite it)
  j["core"] = r.info.core.path;
  j["core_size"] = r.info.core.size;
  j["mode"] = std::string(ModeName(r.info.mode));
  j["line_size"] = r.info.line_size;
  j["line_count"] = r.info.line_count;
  j["shard_stripe_lines"] = r.info.shard_stripe_lines;  // 0: one range per shard (version < 7)
  j["clean_shutdown"] = r.info.was_clean_shutdown;
  j["lines_used"] = r.records.lines_used;
  j["lines_dirty"] = r.records.lines_dirty;
  j["dirty_sectors"] = r.records.dirty_sectors;
  j["problems"] = r.records.problems;
  j["policies"] = PolicyOptionsToJson(r.info.policies);
  return j;
}

void WarnIfServed(const CliOptions& o, CommandIo& io) {
  std::string ctl = o.control.empty() ? DefaultControlPath(o.cache) : o.control;
  Result<int> fd = ConnectUnix(ctl);
  if (!fd.ok()) return;
  ::close(*fd);
  io.err << "tiercache check: warning: tiercached is running on this cache (" << ctl
         << "); the SSD may not hold its latest metadata yet\n";
}

// A load refused for corruption: explains, page by page, what is damaged and what a
// salvage would lose, then fails as the load did.
int ExplainCorruption(AsyncRunner& runner, Device& ssd, const Status& refused, CommandIo& io) {
  Result<LoadedSuperblock> sb = ReadSuperblock(runner, ssd);
  Result<MetadataDiagnosis> d = sb.ok() ? DiagnoseMetadata(runner, ssd, sb->sb)
                                        : Result<MetadataDiagnosis>(sb.status());
  if (!d.ok() || d->pages_refused == 0) {
    return ReportFailure(io, "check", "Corruption", refused.message(), kExitFailed);
  }
  std::string summary = std::to_string(d->pages_refused) +
                        " metadata page(s) refused: the cache is not opened rather than rolled "
                        "back. Restore the SSD, or recreate the cache (tiercache create --force "
                        "--discard-dirty), losing its dirty data";
  if (io.json) {
    ControlJson j = ControlJson::object();
    j["ok"] = false;
    j["error"] = refused.message();
    j["code"] = "Corruption";
    j["pages_refused"] = d->pages_refused;
    j["findings"] = d->findings;
    PrintJsonLine(io, j);
  }
  io.err << "tiercache check: " << refused.message() << "\n";
  for (const std::string& f : d->findings) io.err << "tiercache check: " << f << "\n";
  if (d->pages_refused > d->findings.size()) {
    io.err << "tiercache check: ... and " << (d->pages_refused - d->findings.size())
           << " more pages\n";
  }
  io.err << "tiercache check: " << summary << "\n";
  io.err.flush();
  return kExitFailed;
}

}  // namespace

Result<OfflineCache> LoadOffline(AsyncRunner& runner, Device& ssd,
                                 const std::optional<CoreIdentity>& core) {
  Result<LoadedSuperblock> sb = ReadSuperblock(runner, ssd);
  if (!sb.ok()) return sb.status();
  const CoreIdentity identity = core ? *core : sb->sb.core;
  return runner.run_result<OfflineCache>(
      [&](std::function<void(Result<OfflineCache>)> done) {
        OpenOffline(ssd, *sb, identity, std::move(done));
      });
}

Result<CheckReport> InspectCache(AsyncRunner& runner, Device& ssd,
                                 const std::optional<CoreIdentity>& core) {
  Result<OfflineCache> cache = LoadOffline(runner, ssd, core);
  if (!cache.ok()) return cache.status();
  CheckReport report{cache->superblock, cache->store->info(), !core.has_value(), {}};
  report.records = CheckRecords(*cache->store);
  return report;
}

int RunCheck(const CliOptions& o, CommandIo& io) {
  auto fail = [&io](const Status& s) {
    return ReportFailure(io, "check", std::string(Status::CodeName(s.code())), s.message(),
                         kExitFailed);
  };
  std::optional<CoreIdentity> core;
  if (!o.core.empty()) {
    Result<CoreIdentity> id = IdentifyCore(o.core);
    if (!id.ok()) return fail(id.status());
    core = *id;
  }
  WarnIfServed(o, io);
  Result<std::unique_ptr<AsyncRunner>> runner = AsyncRunner::Start();
  if (!runner.ok()) return fail(runner.status());
  // Declared after the runner: the device is destroyed first, while its loop still runs.
  Result<std::unique_ptr<FileDevice>> ssd = OpenToolDevice(o.cache, /*read_only=*/true);
  if (!ssd.ok()) return fail(ssd.status());
  Result<CheckReport> report = InspectCache(**runner, **ssd, core);
  if (report.status().code() == Status::Code::kCorruption) {
    return ExplainCorruption(**runner, **ssd, report.status(), io);
  }
  if (!report.ok()) return fail(report.status());
  if (io.json) {
    PrintJsonLine(io, ReportJson(*report, o.cache));
  } else {
    PrintReport(*report, o.cache, io.out);
  }
  return report->records.problem_count == 0 ? kExitOk : kExitFailed;
}

}  // namespace tiercache
