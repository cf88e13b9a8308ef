#include "cachelib/metadata/format_task.h"

#include <algorithm>
#include <random>

#include "cachelib/metadata/bounded_io.h"

namespace tiercache {
namespace {

// Largest write_zeroes request used to clear the metadata region.
constexpr uint64_t kZeroChunk = 64ull << 20;

std::array<uint8_t, 16> RandomUuid() {
  std::random_device rd;
  std::array<uint8_t, 16> uuid{};
  for (size_t i = 0; i < uuid.size(); i += 4) {
    uint32_t v = rd();
    for (size_t j = 0; j < 4; ++j) uuid[i + j] = static_cast<uint8_t>(v >> (8 * j));
  }
  uuid[6] = (uuid[6] & 0x0f) | 0x40;  // RFC 4122 version 4
  uuid[8] = (uuid[8] & 0x3f) | 0x80;  // RFC 4122 variant
  return uuid;
}

}  // namespace

void FormatTask::Start(Device& ssd, const CoreIdentity& core, const FormatOptions& options,
                       std::function<void(Status)> done) {
  auto task = std::make_shared<FormatTask>(ssd, options, std::move(done));
  Status s = task->check_arguments(core);
  if (!s.ok()) return task->report(std::move(s));
  task->check_existing();
}

FormatTask::FormatTask(Device& ssd, const FormatOptions& options, std::function<void(Status)> done)
    : ssd_(ssd), options_(options), done_(std::move(done)) {}

Status FormatTask::check_arguments(const CoreIdentity& core) {
  TC_RETURN_IF_ERROR(options_.validate());
  if (core.path.size() > format::kMaxCorePathBytes) {
    return Status::InvalidArgument("core path is " + std::to_string(core.path.size()) +
                                   " bytes; at most 1024 fit in the superblock");
  }
  if (core.size == 0) return Status::InvalidArgument("core " + core.path + " is empty");
  if (ssd_.block_size() > format::kBlockSize || ssd_.max_io_bytes() < format::kPageStride) {
    return Status::NotSupported(ssd_.name() + ": block size " + std::to_string(ssd_.block_size()) +
                                " or request limit " + std::to_string(ssd_.max_io_bytes()) +
                                " unsupported (need <= 4096 and >= 8192)");
  }
  format::Layout layout = format::LayoutForSsd(ssd_.size(), options_.line_size);
  if (layout.line_count < format::kMinLines) {
    uint64_t need = format::LayoutFor(options_.line_size, format::kMinLines).required_size();
    return Status::InvalidArgument(
        "cache device " + ssd_.name() + " is " + std::to_string(ssd_.size()) +
        " bytes, too small for " + std::to_string(format::kMinLines) + " lines of " +
        std::to_string(options_.line_size) + " bytes (needs " + std::to_string(need) + " bytes)");
  }
  sb_.sequence = 1;
  sb_.uuid = RandomUuid();
  sb_.core = core;
  sb_.mode = options_.mode;
  sb_.clean_shutdown = true;  // nothing to recover in an empty cache
  sb_.layout = layout;
  sb_.policies = options_.policies;
  sb_.shard_stripe_lines = format::ShardStripeLinesFor(options_.line_size);
  return Status::Ok();
}

void FormatTask::check_existing() {
  if (options_.force) return zero_metadata();
  // The superblock area, and the first metadata blocks of a cache whose superblock is gone.
  const uint64_t probe = format::kSuperblockAreaSize + format::kMetadataProbeBytes;
  buf_.assign(std::min(probe, ssd_.size() / format::kBlockSize * format::kBlockSize),
              std::byte{0});
  ssd_.read(0, buf_, [self = shared_from_this()](Status s) {
    if (!s.ok()) return self->report(std::move(s));
    const std::span<const std::byte> area(self->buf_.data(), format::kSuperblockAreaSize);
    if (HasTiercacheMagic(area)) {
      return self->report(Status::Busy(self->ssd_.name() +
                                       " already holds a tiercache cache; use --force to "
                                       "overwrite it"));
    }
    if (!format::IsAllZero(area)) {
      return self->report(Status::Busy(self->ssd_.name() +
                                       " holds other data (no tiercache superblock); use --force "
                                       "to overwrite it"));
    }
    const std::span<const std::byte> after = std::span(self->buf_).subspan(area.size());
    if (format::HoldsMetadataBlocks(after)) {
      return self->report(Status::Busy(self->ssd_.name() + " holds " + format::kOrphanMetadata +
                                       "; use --force --discard-dirty to overwrite it"));
    }
    // Data further in (QA, 2026-12-07: an HDD of the SSD's size given as --cache, its first 8 KiB
    // zero, lost the data at 300 KiB).
    const auto nonzero = std::find_if(after.begin(), after.end(),
                                      [](std::byte b) { return b != std::byte{0}; });
    if (nonzero != after.end()) {
      const uint64_t at = area.size() + uint64_t(nonzero - after.begin());
      return self->report(Status::Busy(self->ssd_.name() + " holds other data (at byte " +
                                       std::to_string(at) + "); use --force to overwrite it"));
    }
    self->zero_metadata();
  });
}

void FormatTask::zero_metadata() {
  // The metadata region and the record journal behind it: no block of an earlier cache survives.
  const format::Layout& l = sb_.layout;
  const uint64_t total = l.metadata_length + l.journal_blocks * format::kBlockSize;
  uint64_t chunk = std::min(kZeroChunk, total);
  uint64_t count = (total + chunk - 1) / chunk;
  auto submit = [self = shared_from_this(), chunk, total](size_t i, IoCallback cb) {
    uint64_t offset = i * chunk;
    uint64_t length = std::min(chunk, total - offset);
    self->ssd_.write_zeroes(self->sb_.layout.metadata_offset + offset, length, {}, std::move(cb));
  };
  RunBounded(count, 2, std::move(submit), [self = shared_from_this()](Status s) {
    if (!s.ok()) return self->report(std::move(s));
    self->flush_then(&FormatTask::write_superblocks);
  });
}

void FormatTask::write_superblocks() {
  buf_.assign(format::kSuperblockAreaSize, std::byte{0});
  for (uint64_t offset : format::kSuperblockOffset) {
    EncodeSuperblock(sb_, std::span(buf_).subspan(offset, format::kBlockSize));
  }
  ssd_.write(0, buf_, {}, [self = shared_from_this()](Status s) {
    if (!s.ok()) return self->report(std::move(s));
    self->flush_then(&FormatTask::succeed);
  });
}

void FormatTask::flush_then(void (FormatTask::*next)()) {
  ssd_.flush([self = shared_from_this(), next](Status s) {
    if (!s.ok()) return self->report(std::move(s));
    ((*self).*next)();
  });
}

void FormatTask::succeed() { report(Status::Ok()); }

void FormatTask::report(Status status) {
  auto done = std::move(done_);
  PostStatus(std::move(done), std::move(status));
}

}  // namespace tiercache
