#include "tools/metadata_diagnosis.h"

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "cachelib/metadata/metadata_scan.h"

namespace tiercache {
namespace {

constexpr uint64_t kReadChunk = 4ull << 20;

using AlignedBuffer = std::unique_ptr<std::byte, decltype(&std::free)>;

// O_DIRECT needs an aligned buffer.
AlignedBuffer Allocate(size_t bytes) {
  return AlignedBuffer(static_cast<std::byte*>(std::aligned_alloc(format::kBlockSize, bytes)),
                       &std::free);
}

Status ReadPages(AsyncRunner& runner, Device& ssd, const format::Layout& l, uint64_t first,
                 std::span<std::byte> out) {
  return runner.run([&](std::function<void(Status)> done) {
    ssd.read(l.slot_offset(first, 0), out, done);
  });
}

// The completeness check of an uncommitted round, as the load does it.
Result<bool> IntentComplete(AsyncRunner& runner, Device& ssd, const Superblock& sb) {
  if (sb.intent_round <= sb.committed_round) return false;
  AlignedBuffer buf = Allocate(format::kPageStride);
  std::span<std::byte> page(buf.get(), format::kPageStride);
  for (uint64_t p : sb.intent_pages) {
    TC_RETURN_IF_ERROR(ReadPages(runner, ssd, sb.layout, p, page));
    if (!HasSlotOfRound(page, {p, 0, sb.uuid, sb.layout.records_in_page(p)}, sb.intent_round)) {
      return false;
    }
  }
  return true;
}

}  // namespace

Result<MetadataDiagnosis> DiagnoseMetadata(AsyncRunner& runner, Device& ssd, const Superblock& sb) {
  const format::Layout& l = sb.layout;
  if (l.required_size() > ssd.size()) return MetadataDiagnosis{};  // the load said so already
  Result<bool> complete = IntentComplete(runner, ssd, sb);
  if (!complete.ok()) return complete.status();
  const uint64_t core_lines = sb.core.size / l.line_size + (sb.core.size % l.line_size != 0);
  const uint64_t per_chunk = std::max<uint64_t>(
      1, std::min(ssd.max_io_bytes(), kReadChunk) / format::kPageStride);
  AlignedBuffer buf = Allocate(per_chunk * format::kPageStride);
  MetadataDiagnosis d;
  for (uint64_t first = 0; first < l.page_count; first += per_chunk) {
    uint64_t pages = std::min(per_chunk, l.page_count - first);
    std::span<std::byte> chunk(buf.get(), pages * format::kPageStride);
    TC_RETURN_IF_ERROR(ReadPages(runner, ssd, l, first, chunk));
    for (uint64_t i = 0; i < pages; ++i) {
      auto bytes = chunk.subspan(i * format::kPageStride, format::kPageStride);
      std::optional<PageFinding> f =
          ScanPage(sb, first + i, bytes, RuleForPage(sb, first + i, *complete), core_lines);
      if (!f) continue;
      ++d.pages_refused;
      if (d.findings.size() < kMaxFindings) d.findings.push_back(f->describe(l.line_size));
    }
  }
  return d;
}

}  // namespace tiercache
