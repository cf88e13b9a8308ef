#include "policy/sequential/sequential_options.h"

namespace tiercache {
namespace {

constexpr uint64_t kBlock = 4096;
constexpr uint32_t kMaxStreams = 4096;

bool ValidCutoff(uint64_t bytes) { return bytes >= kBlock && bytes % kBlock == 0; }

}  // namespace

Status SequentialOptions::validate() const {
  if (enabled && !ValidCutoff(read_cutoff_bytes)) {
    return Status::InvalidArgument("read_cutoff_bytes must be a multiple of 4096 and >= 4096");
  }
  if (enabled && !ValidCutoff(write_cutoff_bytes)) {
    return Status::InvalidArgument("write_cutoff_bytes must be a multiple of 4096 and >= 4096");
  }
  if (streams < 1 || streams > kMaxStreams) {
    return Status::InvalidArgument("streams must be in [1, 4096]");
  }
  return Status::Ok();
}

}  // namespace tiercache
