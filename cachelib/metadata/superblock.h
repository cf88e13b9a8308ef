// Superblock: the decoded form of one superblock copy, its encoder/decoder, and the choice between
// the two copies at load (newest valid copy wins, so a torn superblock write loses nothing).
// Layout in format.h and docs/on-disk-format.md. Plain values and functions; thread-compatible.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "cachelib/common/status.h"
#include "cachelib/metadata/core_identity.h"
#include "cachelib/metadata/format.h"
#include "cachelib/metadata/metadata_store.h"

namespace tiercache {

struct Superblock {
  uint32_t version = format::kVersion;
  uint64_t sequence = 0;  // bumped on every superblock write
  std::array<uint8_t, 16> uuid{};
  CoreIdentity core;
  CacheMode mode = CacheMode::kWriteThrough;
  bool clean_shutdown = false;
  format::Layout layout;
  PolicyOptions policies;
  // Version 3 persist rounds (docs/on-disk-format.md "Persist rounds"): every page slot carries
  // the round it was written in. committed_round: the last round whose pages were all written and
  // flushed; intent_round (>= committed_round): the last round started, writing intent_pages.
  uint64_t committed_round = 0;
  uint64_t intent_round = 0;
  std::vector<uint64_t> intent_pages;  // ascending, < layout.page_count, <= kMaxRoundPages
  // Version 5 record journal: journal blocks of rounds below this belong to an earlier epoch
  // (a page checkpoint covers them) and are ignored. <= max(committed, intent) + 1.
  uint64_t journal_start_round = 1;
  // Version 7: lines per stripe the engine deals to its shards in turn (Engine::init); 0 (every
  // version 5 or 6 cache) keeps one contiguous range of lines per shard.
  uint32_t shard_stripe_lines = 0;

  bool operator==(const Superblock&) const = default;
};

enum class SuperblockState {
  kZero,                // never written
  kForeign,             // not a tiercache magic, not all zero
  kBadChecksum,         // tiercache magic, checksum mismatch
  kUnsupportedVersion,  // checksum fine, version this build cannot read
  kBadFields,           // checksum fine (so not a torn write) but fields out of range
  kValid,
};

struct DecodedSuperblock {
  SuperblockState state = SuperblockState::kZero;
  Superblock sb;  // meaningful for kValid; version also for kUnsupportedVersion
};

// Encodes `sb` into one 4096-byte copy, checksum included.
// REQUIRES: out.size() == 4096, sb.core.path.size() <= format::kMaxCorePathBytes.
void EncodeSuperblock(const Superblock& sb, std::span<std::byte> out);
// Decodes and checks one 4096-byte copy.
DecodedSuperblock DecodeSuperblock(std::span<const std::byte> copy);

struct LoadedSuperblock {
  Superblock sb;
  uint32_t copy = 0;  // index of the copy it came from (the next write goes to the other one)
  // The other copy's state: kValid (older or equal), else torn, damaged or never written.
  SuperblockState other_copy = SuperblockState::kValid;
};
// What a copy in `state` is, for people: "valid", "never written", "checksum fails"...
const char* DescribeSuperblockState(SuperblockState state);

// Picks the newest valid copy of the 8 KiB superblock area of `ssd_name`, or explains why none:
// NotFound (all zero / foreign data), Corruption (both checksums bad, or a copy whose checksum
// matches but whose fields do not: a complete write of bad data, never a torn one),
// NotSupported (other version). A copy with a bad checksum next to a valid one is a torn (or
// damaged) write: the write order of docs/on-disk-format.md keeps the committed state in the
// other copy, so falling back to it loses nothing acknowledged.
Result<LoadedSuperblock> LoadSuperblock(std::span<const std::byte> area,
                                        const std::string& ssd_name);

// True when either copy of the area carries the tiercache magic.
bool HasTiercacheMagic(std::span<const std::byte> area);

}  // namespace tiercache
