#include "policy/cleaning/cleaning_options.h"

#include <cstdio>

namespace tiercache {
namespace {

constexpr uint32_t kMaxBatchBlocks = uint32_t{1} << 20;
constexpr uint64_t kMaxWriteBytes = uint64_t{64} << 20;
constexpr uint32_t kMaxWritesInFlight = 1024;

}  // namespace

Status CleaningOptions::validate() const {
  // Written as !(in range) so that NaN fails too.
  if (!(dirty_high > 0.0 && dirty_high <= 1.0)) {
    return Status::InvalidArgument("dirty_high must be in (0, 1]");
  }
  if (!(dirty_target >= 0.0 && dirty_target < dirty_high)) {
    return Status::InvalidArgument("dirty_target must be in [0, dirty_high)");
  }
  if (max_dirty_age <= Nanos(0)) return Status::InvalidArgument("max_dirty_age must be > 0");
  if (age_margin < Nanos(0) || age_margin >= max_dirty_age) {
    return Status::InvalidArgument("age_margin must be in [0, max_dirty_age)");
  }
  if (!(busy_share > 0.0 && busy_share <= 1.0)) {
    return Status::InvalidArgument("busy_share must be in (0, 1]");
  }
  if (idle_after <= Nanos(0)) return Status::InvalidArgument("idle_after must be > 0");
  if (busy_batch_blocks < 1 || busy_batch_blocks > kMaxBatchBlocks) {
    return Status::InvalidArgument("busy_batch_blocks must be in [1, 1048576]");
  }
  if (idle_batch_blocks < busy_batch_blocks || idle_batch_blocks > kMaxBatchBlocks) {
    return Status::InvalidArgument("idle_batch_blocks must be in [busy_batch_blocks, 1048576]");
  }
  if (max_batch_runs < 1 || max_batch_runs > kMaxBatchBlocks) {
    return Status::InvalidArgument("max_batch_runs must be in [1, 1048576]");
  }
  if (writes_in_flight < 1 || writes_in_flight > kMaxWritesInFlight) {
    return Status::InvalidArgument("writes_in_flight must be in [1, 1024]");
  }
  if (max_write_bytes < 4096 || max_write_bytes > kMaxWriteBytes || max_write_bytes % 4096 != 0) {
    return Status::InvalidArgument(
        "max_write_bytes must be a multiple of 4096 in [4096, 67108864]");
  }
  return Status::Ok();
}

std::string CleaningOptions::describe() const {
  auto format = [](const char* f, double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, f, v);
    return std::string(buf);
  };
  auto percent = [&](double share) { return format("%g%%", share * 100); };
  auto seconds = [&](Nanos t) { return format("%g s", std::chrono::duration<double>(t).count()); };
  return "dirty target " + percent(dirty_target) + ", high " + percent(dirty_high) + ", max age " +
         seconds(max_dirty_age) + ", busy share " + percent(busy_share) + ", idle after " +
         seconds(idle_after);
}

}  // namespace tiercache
