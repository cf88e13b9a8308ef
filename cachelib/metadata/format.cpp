#include "cachelib/metadata/format.h"

#include <xxhash.h>

#include <algorithm>
#include <cassert>
#include <cstring>

namespace tiercache::format {
namespace {

uint64_t AlignUp(uint64_t v, uint64_t align) { return (v + align - 1) / align * align; }

}  // namespace

uint64_t Layout::required_size() const { return data_offset + line_count * line_size; }

uint64_t Layout::slot_offset(uint64_t page, uint32_t slot) const {
  assert(page < page_count && slot < kSlotsPerPage);
  return metadata_offset + page * kPageStride + slot * kBlockSize;
}

uint64_t Layout::journal_block_offset(uint64_t i) const {
  assert(i < journal_blocks);
  return journal_offset + i * kBlockSize;
}

uint64_t journal::BlocksFor(uint64_t page_count) {
  return std::clamp<uint64_t>(page_count / 4, kMinBlocks, kMaxBlocks);
}

uint32_t Layout::records_in_page(uint64_t page) const {
  uint64_t first = page * records_per_page;
  if (first >= line_count) return 0;
  return static_cast<uint32_t>(std::min<uint64_t>(records_per_page, line_count - first));
}

Layout LayoutFor(uint32_t line_size, uint64_t line_count) {
  assert(line_size >= kMinLineSize && line_size <= kMaxLineSize);
  Layout l;
  l.line_size = line_size;
  l.sectors_per_line = line_size / static_cast<uint32_t>(kBlockSize);
  l.bitmap_bytes = (l.sectors_per_line + 7) / 8;
  l.record_size = 8 + 2 * l.bitmap_bytes;
  l.records_per_page = static_cast<uint32_t>((kBlockSize - slot::kHeaderSize) / l.record_size);
  l.line_count = line_count;
  l.page_count = (line_count + l.records_per_page - 1) / l.records_per_page;
  l.metadata_offset = kMetadataOffset;
  l.metadata_length = l.page_count * kPageStride;
  l.journal_offset = l.metadata_offset + l.metadata_length;
  l.journal_blocks = journal::BlocksFor(l.page_count);
  l.journal_entries_per_block =
      static_cast<uint32_t>((kBlockSize - journal::kHeaderSize) / (8 + l.record_size));
  l.data_offset = AlignUp(l.journal_offset + l.journal_blocks * kBlockSize, line_size);
  return l;
}

bool FitsIn64Bits(uint32_t line_size, uint64_t line_count) {
  if (line_size < kMinLineSize || line_size > kMaxLineSize) return false;
  // LayoutFor's largest intermediate is required_size(): metadata end, rounded up, plus data.
  uint64_t data_bytes = 0, meta_bytes = 0, end = 0;
  if (__builtin_mul_overflow(line_count, uint64_t{line_size}, &data_bytes)) return false;
  // At least one record per page, so page_count <= line_count.
  if (__builtin_mul_overflow(line_count, kPageStride, &meta_bytes)) return false;
  const uint64_t journal_bytes = journal::kMaxBlocks * kBlockSize;
  if (__builtin_add_overflow(meta_bytes, kMetadataOffset + journal_bytes + line_size, &end)) {
    return false;
  }
  return !__builtin_add_overflow(end, data_bytes, &end);
}

Layout LayoutForSsd(uint64_t ssd_size, uint32_t line_size) {
  // required_size() grows with line_count, so binary-search the largest count that fits.
  uint64_t lo = 0, hi = ssd_size / line_size;
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo + 1) / 2;
    if (LayoutFor(line_size, mid).required_size() <= ssd_size) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return LayoutFor(line_size, lo);
}

uint64_t Checksum(std::span<const std::byte> bytes) { return XXH64(bytes.data(), bytes.size(), 0); }

void PutU8(std::span<std::byte> buf, size_t at, uint8_t v) { buf[at] = std::byte{v}; }

void PutU32(std::span<std::byte> buf, size_t at, uint32_t v) {
  assert(at + 4 <= buf.size());
  for (int i = 0; i < 4; ++i) buf[at + i] = std::byte(v >> (8 * i));
}

void PutU64(std::span<std::byte> buf, size_t at, uint64_t v) {
  assert(at + 8 <= buf.size());
  for (int i = 0; i < 8; ++i) buf[at + i] = std::byte(v >> (8 * i));
}

uint8_t GetU8(std::span<const std::byte> buf, size_t at) {
  return std::to_integer<uint8_t>(buf[at]);
}

uint32_t GetU32(std::span<const std::byte> buf, size_t at) {
  assert(at + 4 <= buf.size());
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= std::to_integer<uint32_t>(buf[at + i]) << (8 * i);
  return v;
}

uint64_t GetU64(std::span<const std::byte> buf, size_t at) {
  assert(at + 8 <= buf.size());
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= std::to_integer<uint64_t>(buf[at + i]) << (8 * i);
  return v;
}

void PutBytes(std::span<std::byte> buf, size_t at, std::span<const std::byte> src) {
  assert(at + src.size() <= buf.size());
  if (!src.empty()) std::memcpy(buf.data() + at, src.data(), src.size());
}

bool IsAllZero(std::span<const std::byte> bytes) {
  return std::all_of(bytes.begin(), bytes.end(), [](std::byte b) { return b == std::byte{0}; });
}

bool HoldsMetadataBlocks(std::span<const std::byte> blocks) {
  for (size_t at = 0; at + kBlockSize <= blocks.size(); at += kBlockSize) {
    const auto magic = std::string_view(reinterpret_cast<const char*>(blocks.data() + at), 8);
    if (magic == slot::kMagic || magic == journal::kMagic) return true;
  }
  return false;
}

}  // namespace tiercache::format
