#include "bench/workloads/trace_import.h"

#include <sys/stat.h>

#include <cerrno>
#include <fstream>
#include <sstream>

namespace tiercache::bench {
namespace {

Result<Trace> Parse(std::string_view format, std::string_view text, std::string name,
                    const ImportOptions& options) {
  if (format == "blkparse") return ParseBlkparse(text, std::move(name), options);
  if (format == "fio") return ParseFioIolog(text, std::move(name), options);
  if (format == "msr") return ParseMsrCsv(text, std::move(name), options);
  return Status::InvalidArgument("unknown trace format '" + std::string(format) +
                                 "' (blkparse, fio, msr)");
}

}  // namespace

Status CheckTraceExtent(const std::string& where, uint64_t offset, uint64_t length) {
  if (offset <= kMaxTraceEnd && length <= kMaxTraceEnd - offset) return Status::Ok();
  return Status::InvalidArgument(where + ": offset " + std::to_string(offset) + " + length " +
                                 std::to_string(length) +
                                 " ends past 64 PiB, the largest volume a trace may address");
}

Result<Trace> ImportTraceFile(std::string_view format, const std::string& path, std::string name,
                              const ImportOptions& options) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return Status::InvalidArgument("cannot read trace file " + path + ": it is a directory");
  }
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    // The stream keeps no reason; open(2)'s errno says which (missing, no access).
    return errno != 0 ? Status::FromErrno(errno, "cannot read trace file " + path)
                      : Status::NotFound("cannot read trace file " + path);
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string_view text = buffer.view();
  if (text.size() >= 2 && uint8_t(text[0]) == 0x1f && uint8_t(text[1]) == 0x8b) {
    return Status::InvalidArgument(path + ": gzip-compressed; decompress it first (gunzip)");
  }
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // a UTF-8 byte order mark
  Result<Trace> trace = Parse(format, text, std::move(name), options);
  if (!trace.ok() && trace.status().code() == Status::Code::kInvalidArgument) {
    return Status::InvalidArgument(path + ": " + trace.status().message());
  }
  return trace;
}

}  // namespace tiercache::bench
