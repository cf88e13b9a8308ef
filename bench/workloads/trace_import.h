// Trace importers: blkparse text output (blktrace), fio iolog v2/v3, and the MSR Cambridge CSV
// layout, each turned into a Trace (timed_requests.h explains how recorded times become
// dependencies). Formats and field meanings: docs/bench.md. Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "bench/workloads/timed_requests.h"

namespace tiercache::bench {

struct ImportOptions : TimedImportOptions {
  // Keep only one device: blkparse "major,minor" (e.g. "8,0"), MSR DiskNumber (e.g. "1"), or the
  // fio iolog file name. Empty: everything.
  std::string device;
};

// blkparse default output: "8,0  3  1  0.000000000  697  D  R 223490 + 8 [proc]". Requests are
// the D (dispatch) events (Q when a trace has no D events); C events supply completion times,
// matched by direction, sector and size. Flushes are data-less events with F in RWBS.
Result<Trace> ParseBlkparse(std::string_view text, std::string name,
                            const ImportOptions& options = {});

// fio iolog: "fio version 2 iolog" then "file action [offset length]"; version 3 prefixes each line
// with a timestamp (microseconds). read/write/trim/sync/datasync become read/write/discard/flush;
// v2 "wait N" adds N microseconds of think time before the next request. No completion times:
// requests are chained at qd_without_completions.
Result<Trace> ParseFioIolog(std::string_view text, std::string name,
                            const ImportOptions& options = {});

// MSR Cambridge: "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime" with Timestamp and
// ResponseTime in 100 ns units (Windows filetime), Type Read or Write, Offset and Size in bytes.
Result<Trace> ParseMsrCsv(std::string_view text, std::string name,
                          const ImportOptions& options = {});

// The end (offset + length) a request may reach: 64 PiB, far below where the engine's 48-bit line
// numbers or the offset arithmetic would wrap.
constexpr uint64_t kMaxTraceEnd = uint64_t{1} << 56;
// InvalidArgument "`where`: offset ... + length ... ends past 64 PiB ..." for a request that
// reaches past kMaxTraceEnd (overflow-safe), else Ok.
Status CheckTraceExtent(const std::string& where, uint64_t offset, uint64_t length);

// Reads `path` and parses it as `format`: "blkparse", "fio" or "msr". Errors name the file; a
// directory and a gzip-compressed file are refused as such; a UTF-8 byte order mark is skipped.
Result<Trace> ImportTraceFile(std::string_view format, const std::string& path, std::string name,
                              const ImportOptions& options = {});

}  // namespace tiercache::bench
