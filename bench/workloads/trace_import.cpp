#include "bench/workloads/trace_import.h"

#include <fstream>
#include <sstream>

namespace tiercache::bench {

Result<Trace> ImportTraceFile(std::string_view format, const std::string& path, std::string name,
                              const ImportOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("cannot read trace file " + path);
  std::stringstream text;
  text << in.rdbuf();
  if (format == "blkparse") return ParseBlkparse(text.str(), std::move(name), options);
  if (format == "fio") return ParseFioIolog(text.str(), std::move(name), options);
  if (format == "msr") return ParseMsrCsv(text.str(), std::move(name), options);
  return Status::InvalidArgument("unknown trace format '" + std::string(format) +
                                 "' (blkparse, fio, msr)");
}

}  // namespace tiercache::bench
