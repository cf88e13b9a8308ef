#include "bench/workloads/trace_import.h"

#include <cerrno>
#include <fstream>
#include <sstream>

namespace tiercache::bench {

Result<Trace> ImportTraceFile(std::string_view format, const std::string& path, std::string name,
                              const ImportOptions& options) {
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    // The stream keeps no reason; open(2)'s errno says which (missing, a directory, no access).
    return errno != 0 ? Status::FromErrno(errno, "cannot read trace file " + path)
                      : Status::NotFound("cannot read trace file " + path);
  }
  std::stringstream text;
  text << in.rdbuf();
  if (format == "blkparse") return ParseBlkparse(text.str(), std::move(name), options);
  if (format == "fio") return ParseFioIolog(text.str(), std::move(name), options);
  if (format == "msr") return ParseMsrCsv(text.str(), std::move(name), options);
  return Status::InvalidArgument("unknown trace format '" + std::string(format) +
                                 "' (blkparse, fio, msr)");
}

}  // namespace tiercache::bench
