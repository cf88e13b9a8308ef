#include "cachelib/metadata/superblock.h"

#include <cassert>
#include <cstring>

namespace tiercache {
namespace {

using namespace format;

std::span<const std::byte> AsBytes(std::string_view s) {
  return std::as_bytes(std::span<const char>(s.data(), s.size()));
}

bool MagicMatches(std::span<const std::byte> copy) {
  return std::memcmp(copy.data() + sb::kMagic, kSuperblockMagic.data(), 8) == 0;
}

bool ValidLineSize(uint32_t v) {
  return v >= kMinLineSize && v <= kMaxLineSize && (v & (v - 1)) == 0;
}

// The layout fields as stored; compared against the layout recomputed from (line size, count).
Layout StoredLayout(std::span<const std::byte> c, uint32_t line_size, uint64_t line_count) {
  Layout l = LayoutFor(line_size, line_count);
  l.record_size = GetU32(c, sb::kRecordSize);
  l.records_per_page = GetU32(c, sb::kRecordsPerPage);
  l.metadata_offset = GetU64(c, sb::kMetadataOffset);
  l.metadata_length = GetU64(c, sb::kMetadataLength);
  l.page_count = GetU64(c, sb::kPageCount);
  l.data_offset = GetU64(c, sb::kDataOffset);
  return l;
}

// A policy name: printable, zero padded, 1 to 16 bytes. False if not.
bool GetName(std::span<const std::byte> c, size_t at, std::string* out) {
  out->clear();
  for (size_t i = 0; i < sb::kPolicyNameBytes; ++i) {
    char ch = static_cast<char>(c[at + i]);
    if (ch == 0) break;
    if (ch < 0x21 || ch > 0x7e) return false;
    out->push_back(ch);
  }
  return !out->empty();
}

void PutName(std::span<std::byte> out, size_t at, const std::string& name) {
  assert(name.size() <= sb::kPolicyNameBytes);
  PutBytes(out, at, AsBytes(name));
}

// The v3 round fields; false if inconsistent (rounds out of order, pages unsorted or past the end).
bool DecodeRounds(std::span<const std::byte> c, Superblock* s) {
  s->committed_round = GetU64(c, sb::kCommittedRound);
  s->intent_round = GetU64(c, sb::kIntentRound);
  uint32_t count = GetU32(c, sb::kIntentCount);
  if (s->intent_round < s->committed_round || count > sb::kMaxRoundPages) return false;
  s->intent_pages.resize(count);
  for (uint32_t i = 0; i < count; ++i) {
    uint64_t page = GetU64(c, sb::kIntentPages + 8 * i);
    if (page >= s->layout.page_count || (i > 0 && page <= s->intent_pages[i - 1])) return false;
    s->intent_pages[i] = page;
  }
  s->journal_start_round = GetU64(c, sb::kJournalStartRound);
  return s->journal_start_round >= 1 && s->journal_start_round <= s->intent_round + 1;
}

// Decodes the fields of a copy whose checksum already matched.
DecodedSuperblock DecodeFields(std::span<const std::byte> c) {
  DecodedSuperblock d;
  Superblock& s = d.sb;
  s.version = GetU32(c, sb::kVersion);
  s.sequence = GetU64(c, sb::kSequence);
  if (s.version < kOldestReadableVersion || s.version > kVersion) {
    d.state = SuperblockState::kUnsupportedVersion;
    return d;
  }
  std::memcpy(s.uuid.data(), c.data() + sb::kUuid, s.uuid.size());
  uint32_t line_size = GetU32(c, sb::kLineSize);
  uint8_t mode = GetU8(c, sb::kMode);
  uint8_t clean = GetU8(c, sb::kCleanShutdown);
  uint64_t line_count = GetU64(c, sb::kLineCount);
  uint32_t path_len = GetU32(c, sb::kCorePathLength);
  d.state = SuperblockState::kBadFields;
  if (!ValidLineSize(line_size) || mode > 3 || clean > 1 || path_len > kMaxCorePathBytes) return d;
  if (!FitsIn64Bits(line_size, line_count)) return d;  // a crafted count must not wrap sizes
  s.layout = LayoutFor(line_size, line_count);
  if (StoredLayout(c, line_size, line_count) != s.layout) return d;
  s.mode = static_cast<CacheMode>(mode);
  s.clean_shutdown = clean == 1;
  s.core.size = GetU64(c, sb::kCoreSize);
  s.core.fingerprint = GetU64(c, sb::kCoreFingerprint);
  s.core.path.assign(reinterpret_cast<const char*>(c.data() + sb::kCorePath), path_len);
  uint8_t seq_enabled = GetU8(c, sb::kSeqEnabled);
  if (seq_enabled > 1 || !GetName(c, sb::kAdmission, &s.policies.admission) ||
      !GetName(c, sb::kReplacement, &s.policies.replacement)) {
    return d;
  }
  s.policies.sequential.enabled = seq_enabled == 1;
  s.policies.sequential.streams = GetU32(c, sb::kSeqStreams);
  s.policies.sequential.read_cutoff_bytes = GetU64(c, sb::kSeqReadCutoff);
  s.policies.sequential.write_cutoff_bytes = GetU64(c, sb::kSeqWriteCutoff);
  if (!DecodeRounds(c, &s)) return d;
  // Zero before version 7 (reserved, written as 0), and since then 0 (a converted version 5 or
  // 6 cache) or what create stores: any other value, or a stripe in a copy labelled older, is a
  // crafted or misread copy whose records would load into the wrong shards.
  s.shard_stripe_lines = GetU32(c, sb::kShardStripeLines);
  if (s.shard_stripe_lines != 0 &&
      (s.version < 7 || s.shard_stripe_lines != ShardStripeLinesFor(line_size))) {
    return d;
  }
  d.state = SuperblockState::kValid;
  return d;
}

}  // namespace

void EncodeSuperblock(const Superblock& s, std::span<std::byte> out) {
  assert(out.size() == kBlockSize && s.core.path.size() <= kMaxCorePathBytes);
  std::memset(out.data(), 0, out.size());
  PutBytes(out, sb::kMagic, AsBytes(kSuperblockMagic));
  PutU32(out, sb::kVersion, s.version);
  PutU64(out, sb::kSequence, s.sequence);
  PutBytes(out, sb::kUuid, std::as_bytes(std::span(s.uuid)));
  PutU32(out, sb::kLineSize, s.layout.line_size);
  PutU8(out, sb::kMode, static_cast<uint8_t>(s.mode));
  PutU8(out, sb::kCleanShutdown, s.clean_shutdown ? 1 : 0);
  PutU32(out, sb::kRecordSize, s.layout.record_size);
  PutU32(out, sb::kRecordsPerPage, s.layout.records_per_page);
  PutU64(out, sb::kMetadataOffset, s.layout.metadata_offset);
  PutU64(out, sb::kMetadataLength, s.layout.metadata_length);
  PutU64(out, sb::kPageCount, s.layout.page_count);
  PutU64(out, sb::kDataOffset, s.layout.data_offset);
  PutU64(out, sb::kLineCount, s.layout.line_count);
  PutU64(out, sb::kCoreSize, s.core.size);
  PutU64(out, sb::kCoreFingerprint, s.core.fingerprint);
  PutU32(out, sb::kCorePathLength, static_cast<uint32_t>(s.core.path.size()));
  PutU32(out, sb::kShardStripeLines, s.shard_stripe_lines);
  PutBytes(out, sb::kCorePath, AsBytes(s.core.path));
  PutName(out, sb::kAdmission, s.policies.admission);
  PutName(out, sb::kReplacement, s.policies.replacement);
  PutU8(out, sb::kSeqEnabled, s.policies.sequential.enabled ? 1 : 0);
  PutU32(out, sb::kSeqStreams, s.policies.sequential.streams);
  PutU64(out, sb::kSeqReadCutoff, s.policies.sequential.read_cutoff_bytes);
  PutU64(out, sb::kSeqWriteCutoff, s.policies.sequential.write_cutoff_bytes);
  assert(s.intent_pages.size() <= sb::kMaxRoundPages);
  PutU64(out, sb::kCommittedRound, s.committed_round);
  PutU64(out, sb::kIntentRound, s.intent_round);
  PutU32(out, sb::kIntentCount, static_cast<uint32_t>(s.intent_pages.size()));
  for (size_t i = 0; i < s.intent_pages.size(); ++i) {
    PutU64(out, sb::kIntentPages + 8 * i, s.intent_pages[i]);
  }
  PutU64(out, sb::kJournalStartRound, s.journal_start_round);
  PutU64(out, sb::kChecksum, Checksum(out.subspan(16)));
}

DecodedSuperblock DecodeSuperblock(std::span<const std::byte> copy) {
  assert(copy.size() == kBlockSize);
  DecodedSuperblock d;
  if (!MagicMatches(copy)) {
    d.state = IsAllZero(copy) ? SuperblockState::kZero : SuperblockState::kForeign;
    return d;
  }
  if (GetU64(copy, sb::kChecksum) != Checksum(copy.subspan(16))) {
    d.state = SuperblockState::kBadChecksum;
    return d;
  }
  return DecodeFields(copy);
}

bool HasTiercacheMagic(std::span<const std::byte> area) {
  assert(area.size() == kSuperblockAreaSize);
  return MagicMatches(area.subspan(kSuperblockOffset[0], kBlockSize)) ||
         MagicMatches(area.subspan(kSuperblockOffset[1], kBlockSize));
}

const char* DescribeSuperblockState(SuperblockState state) {
  switch (state) {
    case SuperblockState::kZero: return "never written (all zero)";
    case SuperblockState::kForeign: return "not a tiercache superblock (other data)";
    case SuperblockState::kBadChecksum: return "checksum fails (a torn or damaged write)";
    case SuperblockState::kUnsupportedVersion: return "a format version this build cannot read";
    case SuperblockState::kBadFields: return "fields out of range";
    case SuperblockState::kValid: return "valid";
  }
  return "unknown";
}

Result<LoadedSuperblock> LoadSuperblock(std::span<const std::byte> area,
                                        const std::string& ssd_name) {
  assert(area.size() == kSuperblockAreaSize);
  DecodedSuperblock d[kSuperblockCopies];
  for (uint32_t i = 0; i < kSuperblockCopies; ++i) {
    d[i] = DecodeSuperblock(area.subspan(kSuperblockOffset[i], kBlockSize));
  }
  auto any = [&](SuperblockState s) { return d[0].state == s || d[1].state == s; };
  // A copy written by a newer format must never be ignored in favour of an older one.
  for (const auto& c : d) {
    if (c.state == SuperblockState::kUnsupportedVersion) {
      std::string what = ssd_name + ": tiercache format version " + std::to_string(c.sb.version) +
                         " is not supported (this build reads versions " +
                         std::to_string(kOldestReadableVersion) + " to " +
                         std::to_string(kVersion) + ")";
      if (c.sb.version > kVersion) {
        what += ": it was made by a newer tiercache; run it with that version (or later)";
      } else {
        what += ": it was made by an older tiercache; write back its dirty data with that version "
                "(tiercache flush), then recreate the cache with tiercache create --force "
                "--discard-dirty";
      }
      return Status::NotSupported(what);
    }
  }
  // A matching checksum means the copy was written whole: bad fields are not a torn write.
  for (uint32_t i = 0; i < kSuperblockCopies; ++i) {
    if (d[i].state == SuperblockState::kBadFields) {
      return Status::Corruption("tiercache superblock copy " + std::to_string(i) + " on " +
                                ssd_name + " has a valid checksum but inconsistent fields "
                                "(sizes, rounds or names out of range); refusing to fall back "
                                "to the other copy");
    }
  }
  if (any(SuperblockState::kValid)) {
    uint32_t best = d[0].state == SuperblockState::kValid ? 0 : 1;
    if (best == 0 && d[1].state == SuperblockState::kValid && d[1].sb.sequence > d[0].sb.sequence) {
      best = 1;
    }
    return LoadedSuperblock{d[best].sb, best, d[1 - best].state};
  }
  if (any(SuperblockState::kBadChecksum)) {
    return Status::Corruption("tiercache superblock on " + ssd_name +
                              " is corrupt: both copies fail their checksum");
  }
  if (any(SuperblockState::kForeign)) {
    return Status::NotFound(ssd_name + " does not hold a tiercache cache (it contains other data)");
  }
  return Status::NotFound("no tiercache superblock on " + ssd_name + "; run tiercache create");
}

}  // namespace tiercache
